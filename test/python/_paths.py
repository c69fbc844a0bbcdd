"""Where the tests find the shipped Python: the linux sandbox's modules as the package `linux`
(they import each other relatively), the runner's modules by file, and the BPF interpreter the
seccomp policy test runs the filter in."""

import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SANDBOX = ROOT / "src" / "sandbox"
RUNNER = ROOT / "src" / "execution" / "runner"
EMULATOR_DIR = ROOT / "test" / "sandbox"

for directory in (SANDBOX, EMULATOR_DIR):
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))


def load_runner_module(name):
    """A module of runner/ under a name of its own (`errors` alone would shadow nothing, but reads badly)."""
    spec = importlib.util.spec_from_file_location(f"ptc_runner_{name}", RUNNER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
