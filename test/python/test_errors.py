"""The runner's error formatter (src/execution/runner/errors.py): what the model reads of a failed
program. The program's own frames only, a hint picked for the sandbox's limits, and a bound."""

import errno
import linecache
import sys
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner import errors

RUNNER = "/ptc/runner.py"
PROGRAM = "<program>"
LIMITS = {"file_bytes": 64 * 1024 * 1024, "scratch": {"bytes": 256 * 1024 * 1024, "files": 65536}}


def raise_through_runner(program_source):
    """Runs `program_source` (defining main()) called from a runner frame; returns what it raised."""
    namespace = {}
    exec(compile(program_source, PROGRAM, "exec"), namespace)
    # The runner catches what the program raised: the traceback starts in its frame, as in runner.py.
    runner_code = compile(
        "def run(main):\n    try:\n        main()\n    except BaseException as exc:\n        return exc\n",
        RUNNER,
        "exec",
    )
    runner = {}
    exec(runner_code, runner)
    raised = runner["run"](namespace["main"])
    if raised is None:
        raise AssertionError("the program did not raise")
    return raised


def raise_in_runner_helper():
    """A program's main() calling a helper of the runner that raises KeyError; returns the error."""
    runner = {}
    exec(compile("def helper():\n    raise KeyError('x')\n", RUNNER, "exec"), runner)
    namespace = {"helper": runner["helper"]}
    exec(compile("def main():\n    helper()\n", PROGRAM, "exec"), namespace)
    try:
        namespace["main"]()
    except KeyError as exc:
        return exc
    raise AssertionError("the helper did not raise")


class FormatTest(unittest.TestCase):
    def setUp(self):
        self.formatter = errors.ErrorFormatter({RUNNER}, LIMITS)

    def test_keeps_the_program_frames_and_leaves_the_runner_out(self):
        exc = raise_through_runner(
            "def main():\n    helper()\n\ndef helper():\n    raise ValueError('bad row')\n"
        )
        text = self.formatter.format(exc)
        self.assertIn('File "<program>", line 2, in main', text)
        self.assertIn('File "<program>", line 5, in helper', text)
        self.assertNotIn(RUNNER, text)
        self.assertTrue(text.endswith("ValueError: bad row"))

    def test_leaves_out_what_the_runner_calls_after_the_program(self):
        # A runner frame under the program's (a helper of the runner raising) ends the kept frames.
        text = self.formatter.format(raise_in_runner_helper())
        self.assertIn('File "<program>", line 2, in main', text)
        self.assertNotIn(RUNNER, text)

    def test_strips_runner_frames_from_causes(self):
        exc = raise_through_runner(
            "def main():\n"
            "    try:\n"
            "        raise OSError('inner')\n"
            "    except OSError as e:\n"
            "        raise RuntimeError('outer') from e\n"
        )
        text = self.formatter.format(exc)
        self.assertIn("OSError: inner", text)
        self.assertNotIn(RUNNER, text)

    @unittest.skipIf(sys.version_info < (3, 11), "ExceptionGroup is Python 3.11's")
    def test_strips_runner_frames_inside_exception_groups(self):
        group = ExceptionGroup("two", [raise_in_runner_helper()])  # noqa: F821 (3.11+)
        text = self.formatter.format(group)
        self.assertIn("KeyError: 'x'", text)
        self.assertNotIn(RUNNER, text)

    def test_a_syntax_error_is_formatted_without_a_traceback(self):
        try:
            compile("def main(:\n", PROGRAM, "exec")
        except SyntaxError as exc:
            text = self.formatter.format(exc, compile_time=True)
        self.assertNotIn("Traceback", text)
        self.assertIn("SyntaxError", text)

    def test_a_hostile_str_does_not_take_the_runner_down(self):
        class Hostile(Exception):
            def __str__(self):
                raise RuntimeError("no")

        self.assertIn("Hostile", self.formatter.format(Hostile()))

    def test_clips_a_long_error_to_its_bound_keeping_head_and_tail(self):
        exc = raise_through_runner("def main():\n    raise ValueError('x' * 100000)\n")
        text = self.formatter.format(exc)
        self.assertLessEqual(len(text), errors.MAX_ERROR_CHARS + 100)
        self.assertTrue(text.startswith("Traceback"))
        self.assertRegex(text, r"\n\.\.\. \(\d+ characters omitted\) \.\.\.\n")
        self.assertTrue(text.endswith("x" * 100))

    def test_clip_leaves_text_at_the_bound_alone(self):
        text = "y" * errors.MAX_ERROR_CHARS
        self.assertEqual(errors.clip(text), text)
        marker = "\n... (1 characters omitted) ...\n"
        self.assertEqual(len(errors.clip(text + "z")), errors.MAX_ERROR_CHARS + len(marker))


class LimitHintTest(unittest.TestCase):
    """limit_hint reads the exception (its type and errno), never its text."""

    def setUp(self):
        self.formatter = errors.ErrorFormatter({RUNNER}, LIMITS)

    def test_a_file_over_its_size_names_the_size(self):
        hint = self.formatter.limit_hint(OSError(errno.EFBIG, "File too large"))
        self.assertEqual(
            hint, "hint: a file may be at most 64 MiB: write less, or split it into several files"
        )

    def test_a_full_scratch_directory_names_its_bounds_and_the_setting(self):
        hint = self.formatter.limit_hint(OSError(errno.ENOSPC, "No space left on device"))
        self.assertIn("at most 256 MiB in 65536 files: execution.max_scratch_bytes", hint)

    def test_fifos_and_device_files_get_their_own_hint(self):
        # The line that failed calls mkfifo (a C function refusing with EPERM, as the sandbox's
        # mkfifo does): the program's source is where tracebacks read it.
        source = (
            "import os\n"
            "mkfifo = os.chmod\n"
            "def main():\n"
            "    mkfifo('/proc/1/status', 0o777)\n"
        )
        linecache.cache[PROGRAM] = (len(source), None, source.splitlines(True), PROGRAM)
        try:
            exc = raise_through_runner(source)
            hint = self.formatter.limit_hint(exc)
        finally:
            linecache.cache.pop(PROGRAM, None)
        self.assertIn("cannot make FIFOs or device files", hint)

    def test_other_refusals_say_what_the_sandbox_refuses(self):
        hint = self.formatter.limit_hint(PermissionError(errno.EPERM, "Operation not permitted"))
        self.assertIn("cannot start processes, change privileges or reach the network", hint)

    def test_no_hint_without_a_limit_in_force_or_for_other_errors(self):
        unlimited = errors.ErrorFormatter({RUNNER}, {"file_bytes": None, "scratch": None})
        self.assertIsNone(unlimited.limit_hint(OSError(errno.EFBIG, "File too large")))
        self.assertIsNone(unlimited.limit_hint(OSError(errno.ENOSPC, "No space left on device")))
        self.assertIsNone(self.formatter.limit_hint(ValueError("bad row")))

    def test_an_error_that_only_quotes_a_limit_gets_no_hint(self):
        quoted = ValueError("[Errno 1] Operation not permitted")
        self.assertIsNone(self.formatter.limit_hint(quoted))

    def test_a_size_that_is_not_whole_mebibytes_is_in_bytes(self):
        odd = errors.ErrorFormatter({RUNNER}, {"file_bytes": 1000, "scratch": None})
        self.assertIn("at most 1000 bytes", odd.limit_hint(OSError(errno.EFBIG, "File too large")))


if __name__ == "__main__":
    unittest.main()
