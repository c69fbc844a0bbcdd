"""Bootstrap of every program child (SPEC §6, §7). Standard library only, Python >= 3.10.

Started as `python -I -S -B runner.py` with an empty environment, cwd = the run's scratch dir, and
fd 3 = a private stream socket to the parent (Node's `'pipe'` stdio entry is a unix socketpair).
fd 1 and fd 2 are captured by the parent, which counts them itself; nothing written there is ever
read as a message. The messages on the channel, their fields and who sends them are written down
once, in src/execution/protocol/channel-messages.ts (checked against these modules by a test).

  (a) take the channel (channel.py) and read `start` (a fork server passes it on instead);
  (b) set the rlimits, then confine: when `start.confine` is an object, its "module" key is the
      absolute path of a Python file, imported as a member of the package its directory makes
      (load_module: it may import its siblings relatively); `apply(confine)` is called with the whole
      object and may return a JSON-serialisable report (e.g. {"tier": "linux:landlock+seccomp"})
      passed back in `ready`. If it raises, the child reports `startup_failed` (stage "confine");
  (c) load the rest of the runtime, already confined (program.py: the Runner), and warm it up;
  (d) send `ready`; (e) wait for `run` inside the already running event loop, so that handing the
      program over costs one wake-up; (f) run it; (g) report `done` and exit.

While the program runs, fd 2 is the stdout pipe too (one ordered stream). At the end the runner
flushes, writes `end_marker` to fd 1 (so the parent knows it has all the output even while a
wrapper still holds the pipe), points fd 1 and 2 at /dev/null (leftover tasks and threads cannot
print later), sends `done` and waits to be killed. A descriptor of the pipe held since the run
began keeps it open until then: the parent reads `done` before the pipe's end.

The runner's modules sit next to this file and form the package `_ptc_runner` (this directory,
with its __init__.py; load_package): they import each other relatively (`from . import calls`), and
nothing is added to sys.path, so a program's `import errors` or `import calls` finds nothing of the
runner's. Run as a script, this file registers the package and makes itself its member (PEP 366);
the fork server (zygote.py) registers the package the same way and imports this module as
`_ptc_runner.runner`. load_package is the runtime's one module loader: the sandbox's confine
module is loaded with it too.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import resource
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from .channel import Channel
    from .program import Runner

_CHANNEL_FD = 3
# Where the channel lives once the runner holds it: out of the way of the descriptors a program
# opens, not inherited by anything, and fd 3 itself is closed.
PRIVATE_FD = 255
_HERE = os.path.dirname(os.path.abspath(__file__))
# The package these modules form in a child (and a fork server).
PACKAGE = "_ptc_runner"
# The package a confine module is loaded into, with the modules next to it.
_CONFINE_PACKAGE = "_ptc_confine"


def load_package(name: str, directory: str) -> ModuleType:
    """The package `name` of `directory`, registered once per process (a fork server registers it
    for its children): its __init__.py runs, as the runtime's own packages have one; a directory
    without one (a test backend's confine module) is a package of its modules alone. The directory
    never goes on sys.path."""
    package = sys.modules.get(name)
    if package is None:
        init = os.path.join(directory, "__init__.py")
        if os.path.isfile(init):
            spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[directory])
        else:
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [directory]
        if spec is None:
            raise ImportError(f"{directory}: cannot be the package {name}")
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        try:
            if spec.loader is not None:
                spec.loader.exec_module(package)
        except BaseException:
            del sys.modules[name]
            raise
    return package


def load_module(path: str, package: str) -> ModuleType:
    """The module at `path` (absolute) as a member of `package`, the package of its directory.
    Raises ImportError when `package` is already another directory's (a fork server preloaded a
    different file): the module it would return is not the one at `path`."""
    directory, file = os.path.split(path)
    registered = load_package(package, directory).__path__
    if list(registered) != [directory]:
        raise ImportError(f"{path}: package {package} is already {list(registered)}")
    return importlib.import_module(f"{package}.{os.path.splitext(file)[0]}")


# Run as a script (a program child), this file makes itself a member of its package (PEP 366): its
# relative imports below resolve in `_ptc_runner`. Imported (the fork server, tests), it is one.
if __name__ == "__main__":
    __package__ = load_package(PACKAGE, _HERE).__name__


def _set_limits(limits: dict[str, Any]) -> None:
    import resource

    def hard_set(which: int, value: Any, top: Any = None) -> None:
        if value is None:
            return
        value = int(value)
        top = value if top is None else max(value, int(top))
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY and top > hard:
            value, top = hard, hard
        resource.setrlimit(which, (value, top))

    hard_set(resource.RLIMIT_CORE, 0)
    # The hard CPU limit above the soft one (the parent's limits say by how much): the kernel sends
    # SIGXCPU at the soft one, which the parent names as the CPU limit; at the hard one, SIGKILL.
    hard_set(resource.RLIMIT_CPU, limits.get("cpu_seconds"), limits.get("cpu_hard_seconds"))
    hard_set(resource.RLIMIT_FSIZE, limits.get("file_size_bytes"))
    hard_set(resource.RLIMIT_NOFILE, limits.get("open_files"))
    # Address space last: the limits above must not fail for lack of memory.
    if hasattr(resource, "RLIMIT_AS"):
        hard_set(resource.RLIMIT_AS, limits.get("address_space_bytes"))


def hinted_limits(start: dict[str, Any], confine_report: Any) -> dict[str, Any]:
    """What an error's hint may name: the file size limit, and the scratch cap when the sandbox
    made the scratch directory a capped tmpfs (it says so in its report), and whether it confined the
    child."""
    confine = start.get("confine") or {}
    bounds = (confine_report or {}).get("bounds") if isinstance(confine_report, dict) else None
    capped = isinstance(bounds, dict) and str(bounds.get("scratch", "")).startswith("tmpfs")
    # What the kernel holds now: confinement may have lowered it (scratch on the host's disk).
    file_bytes = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return {
        "file_bytes": None if file_bytes == resource.RLIM_INFINITY else file_bytes,
        "scratch": confine.get("scratch") if capped else None,
        # Confined by the Linux sandbox (not `none`): a file refused is one outside its scratch.
        "confined": isinstance(start.get("confine"), dict),
    }


def apply_confine(spec: dict[str, Any]) -> Any:
    path = spec.get("module")
    if not isinstance(path, str) or not os.path.isabs(path):
        raise ValueError('confine spec needs an absolute "module" path')
    return load_module(path, _CONFINE_PACKAGE).apply(spec)


def _import_asyncio() -> None:
    # asyncio imports ssl for TLS transports only; programs have no network, and OpenSSL is the
    # slowest part of a child's start. Block it while asyncio loads, then let programs import it.
    saved_ssl = sys.modules.get("ssl", False)
    sys.modules["ssl"] = None  # pyright: ignore[reportArgumentType]
    try:
        import asyncio  # noqa: F401
    finally:
        if saved_ssl is False:
            del sys.modules["ssl"]
        else:
            sys.modules["ssl"] = saved_ssl  # pyright: ignore[reportArgumentType]


def preload(confine_module: str) -> ModuleType:
    """Imports what every child needs, once, in a fork server that never runs a program: its
    children start with it all loaded, and runs a program's paths once (warm_up.warm_fork_server),
    so that what they build on first use is in the pages the children share. Leaves nothing a
    child must have of its own (no event loop, no descriptor). Returns the confine module."""
    _import_asyncio()
    from . import channel, warm_up

    confine = load_module(confine_module, _CONFINE_PACKAGE)
    global _RUNNER_FILES
    _RUNNER_FILES = _runner_files()
    warm_up.warm_fork_server(channel.Channel, _RUNNER_FILES)
    return confine


# The runtime's files, once all its modules are loaded (a fork server's preload() sets it).
_RUNNER_FILES: frozenset[str] | None = None


def _runner_files() -> frozenset[str]:
    """The runtime's files (this one and the package's modules): left out of tracebacks."""
    if _RUNNER_FILES is not None:
        return _RUNNER_FILES
    from .calls import CALL_FILE

    prefix = f"{PACKAGE}."
    modules = [module for name, module in sys.modules.items() if name.startswith(prefix)]
    files = [getattr(module, "__file__", None) for module in modules]
    return frozenset([__file__, CALL_FILE, *filter(None, files)])


def _load_runtime(channel: Channel, devnull: int, limits: dict[str, Any]) -> Runner:
    """Imports what programs need and returns the Runner, warmed up."""
    _import_asyncio()
    from .program import Runner
    from .warm_up import warm_up

    runner = Runner(channel, devnull, _runner_files(), limits)
    warm_up(runner)
    return runner


def channel_from_fd(fd: int) -> Channel:
    """The channel to the parent on `fd`; the fork server's channel to its server too (one framer)."""
    from .channel import Channel

    return Channel.from_fd(fd)


def main(channel_fd: int | None = None, start: Any = None) -> NoReturn:
    """Runs one child. `channel_fd`: the channel when a fork server made this process (it
    connected back to the parent); otherwise the channel is fd 3. `start`: the start message, when
    the fork server passed it on; otherwise it is read from the channel."""
    # (a) Take the channel before anything else, then read the start message.
    try:
        if channel_fd is None:
            from .output import copy_out_of_the_way

            channel_fd = copy_out_of_the_way(_CHANNEL_FD, PRIVATE_FD)
            os.close(_CHANNEL_FD)
        channel = channel_from_fd(channel_fd)
    except Exception as exc:  # no channel: nobody to tell
        sys.stderr.write(f"ptc-mcp runner: no channel on fd {_CHANNEL_FD}: {exc}\n")
        os._exit(70)

    def startup_failed(stage: str, exc: BaseException) -> NoReturn:
        channel.send({"type": "startup_failed", "stage": stage, "error": f"{type(exc).__name__}: {exc}"})
        os._exit(71)

    try:
        if start is None:
            start = channel.receive_blocking()
        if not isinstance(start, dict) or start.get("type") != "start":
            raise ValueError("expected a start message")
        # Opened before confinement: where fd 1 and 2 point after `done`.
        devnull = os.open(os.devnull, os.O_WRONLY)
    except Exception as exc:
        startup_failed("start", exc)

    # (b) Limits first (a seccomp filter may forbid setrlimit afterwards), then confinement.
    try:
        _set_limits(start.get("limits") or {})
    except Exception as exc:
        startup_failed("limits", exc)
    confine_report = None
    confine = start.get("confine")
    if confine is not None:
        try:
            confine_report = apply_confine(confine)
            channel.to_bytes(confine_report)
        except BaseException as exc:
            startup_failed("confine", exc)

    # (c) The rest of the runtime, already confined.
    try:
        limits = hinted_limits(start, confine_report)
        runner = _load_runtime(channel, devnull, limits)
    except BaseException as exc:
        startup_failed("load", exc)

    # (d) Ready; (e)-(g) in the event loop (`serve` never returns).
    channel.send({"type": "ready", "confine": confine_report})
    runner.serve()


if __name__ == "__main__":
    main()
