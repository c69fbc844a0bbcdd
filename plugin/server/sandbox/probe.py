"""The escape probe (SPEC §7): what a sandbox must refuse and what it must leave working, in one place.

Run confined exactly as a program is, three ways:
  * by the linux backend, once per interpreter: `python -I -S -B probe.py CONFIG`, launched as a
    program child (same command, bwrap arguments); CONFIG's "confine" spec is applied first, as the
    runner applies it;
  * by the seatbelt backend, the same way under sandbox-exec;
  * by `doctor`, as a program the engine runs: this file's source, then `emit(probe(CONFIG))`.

CONFIG (src/sandbox/probe.ts builds it):
  {"attempts": [names of ATTEMPTS], "works": [names of WORKS], "sentinel": path outside,
   "writeTarget": path outside, "port": a TCP listener's port on 127.0.0.1, "confine": spec | null}
The report, printed as one JSON line (or returned by probe()):
  {"confined": bool, "error": str, "report": what apply() returned, "refused": {name: bool},
   "leaked": the sentinel's text if it could be read, "hidden": bool, "works": {name: bool}, "uid": int}
An attempt counts as refused when it raises OSError. The caller judges from outside too, where it
can: the sentinel's text is not in what came back, the write target does not exist, the listener
saw no connection. A silent no-op must never pass.
"""

import functools
import json
import os
import socket
import sys
import threading
from collections.abc import Callable


def _read_outside(config: dict, out: dict) -> None:
    with open(config["sentinel"], "rb") as f:
        out["leaked"] = f.read().decode("utf-8", "replace")


def _write_outside(config: dict, out: dict) -> None:
    # Left in place if it works: the caller checks from outside that it is not there, and removes it.
    with open(config["writeTarget"], "xb") as f:
        f.write(b"escaped")


def _connect(config: dict, out: dict) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        s.connect(("127.0.0.1", int(config["port"])))


def _fork(config: dict, out: dict) -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def _spawn(config: dict, out: dict) -> None:
    pid = os.posix_spawn("/bin/true", ["true"], {})
    os.waitpid(pid, 0)


def _read_passwd(config: dict, out: dict) -> None:
    with open("/etc/passwd", "rb"):
        pass


def _unix_socket(config: dict, out: dict) -> None:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()


def _signal_parent(config: dict, out: dict) -> None:
    os.kill(os.getppid(), 0)


def _list_users(config: dict, out: dict) -> None:
    os.listdir("/Users")


# Each must raise OSError inside a sandbox (the backends say which apply on their platform).
ATTEMPTS = {
    "read outside": _read_outside,
    "write outside": _write_outside,
    "socket": _connect,
    "fork": _fork,
    "read /etc/passwd": _read_passwd,
    "unix socket": _unix_socket,
    "spawn": _spawn,
    "signal the parent": _signal_parent,
    "list /Users": _list_users,
}


def _scratch() -> bool:
    path = os.path.join(os.getcwd(), "probe.txt")
    with open(path, "w") as f:
        f.write("ok")
    with open(path) as f:
        return f.read() == "ok"


def _socketpair() -> bool:
    a, b = socket.socketpair()
    with a, b:
        a.sendall(b"x")
        return b.recv(1) == b"x"


def _thread() -> bool:
    ran = []
    thread = threading.Thread(target=lambda: ran.append(True))
    thread.start()
    thread.join()
    return ran == [True]


# Each must still work inside a sandbox: what programs need.
WORKS = {"scratch": _scratch, "socketpair": _socketpair, "thread": _thread}


def refused(
    action: Callable[[], object],
    refusal: type[BaseException] | tuple[type[BaseException], ...] = OSError,
) -> bool:
    """Whether `action()` was refused: it raised `refusal` (OSError unless said). Anything else
    propagates: an attempt that fails for another reason proves nothing. The escape suites judge
    their attempts with this too (test/sandbox/programs.ts)."""
    try:
        action()
    except refusal:
        return True
    return False


def works(action: Callable[[], object]) -> bool:
    """Whether `action()` worked: it neither raised OSError nor returned False."""
    try:
        return action() is not False
    except OSError:
        return False


def probe(config: dict) -> dict:
    """Makes the attempts and checks the controls CONFIG names; returns the report."""
    out = {"confined": True, "refused": {}, "leaked": None, "works": {}}
    for name in config["attempts"]:
        out["refused"][name] = refused(functools.partial(ATTEMPTS[name], config, out))
    out["hidden"] = not os.path.lexists(config["sentinel"]) and not os.path.lexists("/proc/1")
    for name in config["works"]:
        out["works"][name] = works(WORKS[name])
    out["uid"] = os.getuid()
    return out


def _confine(spec: dict) -> object:
    """Applies the confine spec as the runner does. Its module is imported the plain way, as a member
    of its directory's package with the parent directory on sys.path: this process runs no program."""
    import importlib

    directory, file = os.path.split(spec["module"])
    sys.path.insert(0, os.path.dirname(directory))
    module = importlib.import_module(f"{os.path.basename(directory)}.{os.path.splitext(file)[0]}")
    return module.apply(spec)


def main() -> None:
    config = json.loads(sys.argv[1])
    try:
        report = _confine(config["confine"]) if config.get("confine") else None
    except BaseException as exc:
        print(json.dumps({"confined": False, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
        return
    out = probe(config)
    out["report"] = report
    print(json.dumps(out), flush=True)


# Run as a script; doctor's program (which has no __file__) calls probe() itself.
if __name__ == "__main__" and "__file__" in globals():
    main()
