"""The session's ./session/ files, written into this child's scratch directory before the program
starts (SPEC §6.2): the `session_file` and `session_data` messages of channel-messages.ts. The
parent checked every name when the files came out of an earlier program; they are checked again
here, and written with what the program itself may write: directories made here, files created
O_EXCL|O_NOFOLLOW, nothing followed.
"""

from __future__ import annotations

import base64
import binascii
import os

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class SessionFiles:
    """Writes the files the parent sends, one at a time, under `<scratch>/session`."""

    def __init__(self, scratch: str) -> None:
        self.root = os.path.join(scratch, "session")
        self.fd: int | None = None  # the file being written, or None (none begun, or it failed)
        self.path = ""

    def make_root(self) -> None:
        """./session/ exists when the program starts, even empty."""
        try:
            os.mkdir(self.root, 0o700)
        except FileExistsError:
            pass

    def begin(self, name: object) -> None:
        self.end()
        parts = name.split("/") if isinstance(name, str) else []
        if not parts or any(part in ("", ".", "..") for part in parts):
            return
        self.make_root()
        directory = self.root
        try:
            for part in parts[:-1]:
                directory = os.path.join(directory, part)
                try:
                    os.mkdir(directory, 0o700)
                except FileExistsError:
                    os.close(os.open(directory, _DIR_FLAGS))  # a directory, not a link to one
            self.path = os.path.join(directory, parts[-1])
            self.fd = os.open(self.path, _CREATE_FLAGS, 0o600)
        except OSError:
            self.fd = None

    def append(self, data: object) -> None:
        if self.fd is None or not isinstance(data, str):
            return
        try:
            chunk = base64.b64decode(data, validate=True)
            view = memoryview(chunk)
            while view:
                view = view[os.write(self.fd, view) :]
        except (binascii.Error, ValueError, OSError):  # a full scratch: the file is left out
            self.end()
            try:
                os.unlink(self.path)
            except OSError:
                pass

    def end(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
