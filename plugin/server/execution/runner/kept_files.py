"""Files a program wrote under ./out/ of its scratch directory (SPEC §14), then those it left in
./session/ for the next program (SPEC §6.2), sent to the parent after the program ends, before
`done`: the `file`, `file_data` and `file_skipped` messages of channel-messages.ts, each naming
its area (out or session).

The walk runs inside the sandbox, with what the program itself may read: it opens every
directory and file relative to its parent's descriptor with O_NOFOLLOW, so no link is followed at
any level; links, devices, FIFOs and sockets are reported, not read. The parent checks every name,
count and byte again (kept-files.ts): all of this is a claim.
"""

from __future__ import annotations

import base64
import errno
import os
import stat
from collections.abc import Callable
from typing import Any

MAX_FILES = 64
MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 8
CHUNK_BYTES = 1024 * 1024

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO swapped in after the check cannot block the open.
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class _Full(Exception):
    """The file limit is reached: the walk stops."""


def send_kept_files(
    scratch: str,
    send_bytes: Callable[[bytes], None],
    encode: Callable[[Any], bytes],
    area: str = "out",
    max_files: int = MAX_FILES,
    max_bytes: int = MAX_BYTES,
) -> None:
    """Sends the regular files under `<scratch>/<area>` (out or session), at most `max_files` of
    `max_bytes` in all. `send_bytes(line)` writes one message (without its newline); `encode(obj)`
    serialises one as JSON bytes."""
    try:
        out = os.open(os.path.join(scratch, area), _DIR_FLAGS)
    except OSError:
        return  # no such directory (or not one: a link to one is not followed)
    walk = _Walk(send_bytes, encode, area, max_files, max_bytes)
    try:
        walk.directory(out, "", 0)
    except _Full:
        pass
    finally:
        os.close(out)


class _Walk:
    def __init__(
        self,
        send_bytes: Callable[[bytes], None],
        encode: Callable[[Any], bytes],
        area: str,
        max_files: int,
        max_bytes: int,
    ) -> None:
        self.send_bytes = send_bytes
        self.encode = encode
        self.area = area
        self.max_files = max_files
        self.max_bytes = max_bytes
        self.files = 0
        self.bytes = 0

    def skipped(self, name: str, reason: str) -> None:
        message = {"type": "file_skipped", "name": name, "reason": reason, "area": self.area}
        self.send_bytes(self.encode(message))

    def directory(self, fd: int, prefix: str, depth: int) -> None:
        try:
            names = sorted(os.listdir(fd))
        except OSError:
            return
        for entry in names:
            name = prefix + entry
            try:
                mode = os.stat(entry, dir_fd=fd, follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                self.skipped(name, "link")
            elif stat.S_ISDIR(mode):
                if depth >= MAX_DEPTH:
                    self.skipped(name, "depth")
                    continue
                try:
                    sub = os.open(entry, _DIR_FLAGS, dir_fd=fd)
                except OSError:  # swapped for a link meanwhile
                    self.skipped(name, "link")
                    continue
                try:
                    self.directory(sub, name + "/", depth + 1)
                finally:
                    os.close(sub)
            elif not stat.S_ISREG(mode):
                self.skipped(name, "special")
            else:
                self.file(fd, entry, name)

    def file(self, dir_fd: int, entry: str, name: str) -> None:
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8: the parent could not name it
            self.skipped(name, "name")
            return
        if self.files >= self.max_files:
            self.skipped(name, "files")
            raise _Full()
        try:
            fd = os.open(entry, _FILE_FLAGS, dir_fd=dir_fd)
        except OSError as exc:  # swapped for a link meanwhile (ELOOP), or unreadable
            self.skipped(name, "link" if exc.errno == errno.ELOOP else "unreadable")
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                self.skipped(name, "special")
                return
            room = self.max_bytes - self.bytes
            if info.st_size > room:
                self.skipped(name, "bytes")
                return
            self.files += 1
            self.send_bytes(self.encode({"type": "file", "name": name, "area": self.area}))
            # A file that grows meanwhile is sent one byte past the limit: the parent refuses it.
            sent = 0
            while sent <= room:
                chunk = os.read(fd, min(CHUNK_BYTES, room - sent + 1))
                if not chunk:
                    break
                sent += len(chunk)
                self.send_bytes(b'{"type":"file_data","data":"' + base64.b64encode(chunk) + b'"}')
            self.bytes += min(sent, room)
        finally:
            os.close(fd)
