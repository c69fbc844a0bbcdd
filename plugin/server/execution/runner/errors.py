"""A program's errors as the model reads them: the program's own frames and lines, never the
runner's, clipped to a bounded length (SPEC §6), and a hint when the error is a limit of the
sandbox."""

from __future__ import annotations

import errno
import os
import traceback
import types
from collections.abc import Iterable
from typing import Any

MAX_ERROR_CHARS = 20000


_MIB = 1024 * 1024


def _size(count: int) -> str:
    return f"{count // _MIB} MiB" if count % _MIB == 0 else f"{count} bytes"


class ErrorFormatter:
    """Formats exceptions, leaving out the frames of `runner_files` (and what they call).
    `limits`: {"file_bytes": int | None, "scratch": {"bytes", "files"} | None (not a capped tmpfs),
    "confined": bool (the sandbox confined the child to its scratch directory)}."""

    def __init__(self, runner_files: frozenset[str], limits: dict[str, Any]) -> None:
        self.runner_files = runner_files
        self.limits = limits

    def limit_hint(self, exc: BaseException | None) -> str | None:
        """A hint line for an exception that is one of the sandbox's limits, or None: read from the
        exception (its type and errno), never from its text, which the program may have written."""
        if not isinstance(exc, OSError):
            return None
        file_bytes = self.limits.get("file_bytes")
        scratch = self.limits.get("scratch")
        code = exc.errno
        if code == errno.EFBIG and file_bytes:
            size = _size(file_bytes)
            return f"hint: a file may be at most {size}: write less, or split it into several files"
        if code == errno.ENOSPC and scratch:
            return (
                f"hint: the scratch directory is full (at most {_size(scratch['bytes'])} in"
                f" {scratch['files']} files: execution.max_scratch_bytes): delete what the program"
                " no longer needs, or keep less"
            )
        if self.limits.get("confined") and _refused_file(exc):
            return (
                "hint: outside the sandbox: only the scratch directory is readable and writable"
                " (the working directory, ./); reach other files through a tool"
            )
        if code != errno.EPERM:
            return None
        if _failed_line_calls(exc, ("mkfifo", "mknod")):
            return (
                "hint: the sandbox refused this: programs cannot make FIFOs or device files;"
                " use a regular file, or an asyncio.Queue between tasks"
            )
        return (
            "hint: the sandbox refused this: programs cannot start processes, change"
            " privileges or reach the network; call a tool for it"
        )

    def user_frames(self, tb: types.TracebackType | None) -> types.TracebackType | None:
        """The program's frames: the runner's own (and what they call) are left out."""
        runner_files = self.runner_files
        kept = []
        entered = False
        while tb is not None:
            is_runner = tb.tb_frame.f_code.co_filename in runner_files
            if not entered:
                if not is_runner:
                    entered = True
            elif is_runner:
                break
            if entered:
                kept.append(tb)
            tb = tb.tb_next
        rebuilt = None
        for item in reversed(kept):
            rebuilt = types.TracebackType(rebuilt, item.tb_frame, item.tb_lasti, item.tb_lineno)
        return rebuilt

    def strip_runner_frames(self, exc: BaseException | None, seen: set[int]) -> None:
        if exc is None or id(exc) in seen:
            return
        seen.add(id(exc))
        exc.__traceback__ = self.user_frames(exc.__traceback__)
        self.strip_runner_frames(exc.__cause__, seen)
        self.strip_runner_frames(exc.__context__, seen)
        for inner in getattr(exc, "exceptions", None) or ():
            if isinstance(inner, BaseException):
                self.strip_runner_frames(inner, seen)

    def format(self, exc: BaseException, compile_time: bool = False) -> str:
        try:
            if compile_time:
                text = "".join(traceback.format_exception_only(type(exc), exc))
            else:
                self.strip_runner_frames(exc, set())
                text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        except BaseException as failure:  # a hostile __str__ must not take the runner down
            text = f"{type(exc).__name__} (unprintable: {type(failure).__name__})"
        return clip(text.rstrip("\n"))


def _failed_line_calls(exc: BaseException, names: Iterable[str]) -> bool:
    """Whether the line the exception was raised from names one of `names` (os.mkfifo(...))."""
    try:
        frames = traceback.extract_tb(exc.__traceback__)
    except BaseException:
        return False
    line = frames[-1].line if frames else None
    return bool(line) and any(name in line for name in names)


def _refused_file(exc: OSError) -> bool:
    """A file the sandbox kept from the program: refused (EACCES, in every tier), or not there at
    all outside the scratch directory (the bwrap tier mounts only what the interpreter needs)."""
    name = exc.filename
    if not isinstance(name, (str, bytes)):
        return False
    if exc.errno == errno.EACCES:
        return True
    path = os.fsdecode(name)
    if exc.errno != errno.ENOENT or not os.path.isabs(path):
        return False
    try:
        return os.path.commonpath([path, os.getcwd()]) != os.getcwd()
    except (OSError, ValueError):
        return False


def clip(text: str) -> str:
    if len(text) <= MAX_ERROR_CHARS:
        return text
    half = MAX_ERROR_CHARS // 2
    return f"{text[:half]}\n... ({len(text) - 2 * half} characters omitted) ...\n{text[-half:]}"
