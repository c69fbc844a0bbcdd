"""A file the sandbox refused is explained in the program's error (src/execution/runner/errors.py):
chosen by the exception's kind and errno, and only when the sandbox confined the child."""

import errno
import os
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner import errors

RUNNER = "/ptc/runner.py"
HINT = (
    "hint: outside the sandbox: only the scratch directory is readable and writable"
    " (the working directory, ./); reach other files through a tool"
)


def refused(path="/etc/passwd"):
    return PermissionError(errno.EACCES, "Permission denied", path)


class SandboxRefusalHint(unittest.TestCase):
    def setUp(self):
        self.confined = errors.ErrorFormatter(frozenset({RUNNER}), {"confined": True})

    def test_a_file_refused_under_the_sandbox_says_what_is_reachable(self):
        self.assertEqual(self.confined.limit_hint(refused()), HINT)

    def test_without_the_sandbox_a_refused_file_is_the_host_s_permission(self):
        unconfined = errors.ErrorFormatter(frozenset({RUNNER}), {"confined": False})
        self.assertIsNone(unconfined.limit_hint(refused()))

    def test_chosen_by_errno_and_file_never_by_the_message(self):
        # No file: not a file the sandbox refused.
        self.assertIsNone(self.confined.limit_hint(PermissionError(errno.EACCES, "Permission denied")))
        # A message that reads like one, with another errno.
        lookalike = OSError(errno.EEXIST, "outside the sandbox: Permission denied", "/etc/passwd")
        self.assertIsNone(self.confined.limit_hint(lookalike))

    def test_a_file_missing_outside_the_scratch_directory_is_one_the_sandbox_kept_out(self):
        # The bwrap tier mounts only what the interpreter needs: /etc/passwd is not there at all.
        missing = FileNotFoundError(errno.ENOENT, "No such file or directory", "/etc/passwd")
        self.assertEqual(self.confined.limit_hint(missing), HINT)
        # One missing in the working directory (the scratch directory) is only missing.
        here = FileNotFoundError(errno.ENOENT, "No such file", os.path.join(os.getcwd(), "a.csv"))
        self.assertIsNone(self.confined.limit_hint(here))
        self.assertIsNone(self.confined.limit_hint(FileNotFoundError(errno.ENOENT, "No such file", "a.csv")))


if __name__ == "__main__":
    unittest.main()
