"""A program's errors as the model reads them: the program's own frames and lines, never the
runner's, clipped to a bounded length (SPEC §6)."""

import traceback
import types

MAX_ERROR_CHARS = 20000


class ErrorFormatter:
    """Formats exceptions, leaving out the frames of `runner_files` (and what they call)."""

    def __init__(self, runner_files):
        self.runner_files = runner_files

    def user_frames(self, tb):
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

    def strip_runner_frames(self, exc, seen):
        if exc is None or id(exc) in seen:
            return
        seen.add(id(exc))
        exc.__traceback__ = self.user_frames(exc.__traceback__)
        self.strip_runner_frames(exc.__cause__, seen)
        self.strip_runner_frames(exc.__context__, seen)
        for inner in getattr(exc, "exceptions", None) or ():
            if isinstance(inner, BaseException):
                self.strip_runner_frames(inner, seen)

    def format(self, exc, compile_time=False):
        try:
            if compile_time:
                text = "".join(traceback.format_exception_only(type(exc), exc))
            else:
                self.strip_runner_frames(exc, set())
                text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        except BaseException as failure:  # a hostile __str__ must not take the runner down
            text = f"{type(exc).__name__} (unprintable: {type(failure).__name__})"
        return clip(text.rstrip("\n"))


def clip(text):
    if len(text) <= MAX_ERROR_CHARS:
        return text
    half = MAX_ERROR_CHARS // 2
    return f"{text[:half]}\n... ({len(text) - 2 * half} characters omitted) ...\n{text[-half:]}"
