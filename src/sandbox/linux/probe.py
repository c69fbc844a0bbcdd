"""Checks, once per process, that the linux sandbox really takes effect (SPEC §7).

Run as `python -I -S -B probe.py SPEC_JSON SENTINEL` exactly as a program child is launched (same
command, bwrap arguments and confine spec). It applies the confinement as the runner does, then
tries what must be refused and what must still work, and prints one JSON line: the backend turns
any attempt that was not refused into a SandboxError. A silent no-op must never pass.
"""

import importlib.util
import json
import os
import sys


def main():
    spec = json.loads(sys.argv[1])
    sentinel = sys.argv[2]
    out = {"confined": False}
    try:
        module_spec = importlib.util.spec_from_file_location("_ptc_confine", spec["module"])
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        out["report"] = module.apply(spec)
        out["confined"] = True
    except BaseException as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
        print(json.dumps(out), flush=True)
        return

    import socket
    import threading

    refused = {}

    def attempt(name, action):
        try:
            action()
            refused[name] = False
        except OSError:
            refused[name] = True

    def read_sentinel():
        with open(sentinel, "rb") as f:
            f.read(1)

    def write_outside():
        # Next to confine.py: a host directory that exists in every tier and that the child's
        # uid may own (root without capabilities), so only the sandbox can refuse this.
        target = os.path.join(os.path.dirname(spec["module"]), "written-by-probe")
        try:
            with open(target, "xb") as f:
                f.write(b"x")
        finally:
            if os.path.exists(target):
                try:
                    os.unlink(target)
                except OSError:
                    pass

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    def run_true():
        pid = os.posix_spawn("/bin/true", ["true"], {})
        os.waitpid(pid, 0)

    attempt("read a file outside", read_sentinel)
    attempt("read /etc/passwd", lambda: open("/etc/passwd", "rb").close())
    attempt("write outside", write_outside)
    attempt("open an inet socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
    attempt("open a unix socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
    attempt("fork", fork)
    attempt("spawn a program", run_true)
    attempt("signal the parent", lambda: os.kill(os.getppid(), 0))
    out["refused"] = refused
    out["hidden"] = not os.path.lexists(sentinel) and not os.path.lexists("/proc/1")

    works = {}
    try:
        path = os.path.join(os.getcwd(), "probe.txt")
        with open(path, "w") as f:
            f.write("ok")
        with open(path) as f:
            works["scratch"] = f.read() == "ok"
    except OSError:
        works["scratch"] = False
    try:
        a, b = socket.socketpair()
        a.sendall(b"x")
        works["socketpair"] = b.recv(1) == b"x"
    except OSError:
        works["socketpair"] = False
    ran = []
    thread = threading.Thread(target=lambda: ran.append(True))
    thread.start()
    thread.join()
    works["thread"] = ran == [True]
    out["works"] = works
    out["uid"] = os.getuid()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
