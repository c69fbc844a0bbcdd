"""Where the tests find the shipped Python: the linux sandbox's package as `linux` and
the runner's as the package `runner` (each imports its siblings relatively), and the BPF
interpreter the seccomp policy test runs the filter in."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SANDBOX = ROOT / "src" / "sandbox"
EXECUTION = ROOT / "src" / "execution"
EMULATOR_DIR = ROOT / "test" / "sandbox"

for directory in (SANDBOX, EXECUTION, EMULATOR_DIR):
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
