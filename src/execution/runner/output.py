"""The program's output: fd 1 (and fd 2, the same stream while the program runs), captured and
counted by the parent, which never reads it as messages."""

from __future__ import annotations

import io
import os
import sys

# Where the held descriptor of the stdout pipe lives: out of the way of the descriptors a program
# opens, next to the channel's (runner.py `PRIVATE_FD`).
HELD_FD = 254


def copy_out_of_the_way(fd: int, at: int) -> int:
    """A copy of `fd` at descriptor `at`, not inherited by anything; any free descriptor when the
    open-files limit is below `at`. Raises OSError when none is free."""
    try:
        return os.dup2(fd, at, inheritable=False)
    except OSError:
        return os.dup(fd)


class Output:
    """`stream` is the program's sys.stdout and sys.stderr; `end` closes the output for good."""

    def __init__(self, devnull: int) -> None:
        # Opened before confinement: where fd 1 and 2 point once the output is closed.
        self.devnull = devnull
        self.stream = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
        )

    def begin(self) -> None:
        """One ordered stream: what the program (or C code) writes to fd 2 goes where fd 1 goes."""
        try:
            os.dup2(1, 2)
        except OSError:
            pass
        # A second hold on the stdout pipe, never closed: the parent sees the pipe's end when this
        # process ends, after it has read `done` and answered (it needs neither EOF nor the close
        # to answer, and handling them first would delay the answer).
        try:
            copy_out_of_the_way(1, HELD_FD)
        except OSError:
            pass
        sys.stdout = sys.stderr = self.stream

    def flush_everything(self) -> None:
        for stream in (self.stream, sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                if stream is not None:
                    stream.flush()
            except BaseException:
                pass

    def end(self, marker: bytes) -> None:
        """Flushes, writes `marker` (so the parent knows it has all the output even while a
        wrapper still holds the pipe), and points fd 1 and 2 at /dev/null: whatever still runs
        (threads, tasks) writes there. The pipe stays open (HELD_FD) until this process ends."""
        self.flush_everything()
        try:
            while marker:
                marker = marker[os.write(1, marker) :]
        except OSError:
            pass
        try:
            os.dup2(self.devnull, 1)
            os.dup2(self.devnull, 2)
        except OSError:
            pass
