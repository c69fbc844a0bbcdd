"""Fork server of the linux backend: makes program children in milliseconds (SPEC §7 warm_pool, §11).

Started once per engine, as `[bwrap ...] python -I -S -B zygote.py <runner's directory>
<confine.py> <socket> <proc> <namespaces>`, with fd 3 a private channel to the server. It imports
the runner and what every child needs, then forks children on request. It never runs program
code, and its children hold nothing of it: each one is made like this:

  1. clone() into a new mount namespace, a new user namespace when unprivileged (its uid maps to
     itself: RLIMIT_NPROC then counts this program alone), and those named in <namespaces> (without
     bwrap: ipc; in bwrap none). The PID, IPC, network, UTS and cgroup namespaces are the session's
     (bwrap's, made once for the fork server; without bwrap the PID namespace is the server's),
     SPEC §11: the program's seccomp filter lets it signal, prlimit, ask after, schedule or read the
     CPU clock of only its own pid, and refuses fork, ptrace, pidfd, sockets, IPC, sethostname and
     F_SETOWN (capget can still tell whether a pid exists); its Landlock domain keeps it out of
     every other process (ptrace), scopes signals and abstract sockets (ABI 6, Linux 6.12+), and
     grants no /proc (bwrap mounts none; without bwrap, stat still sees the host's pids). The
     clone is the program's process itself, one process per program (no init in between: an init
     ignores the signals it sends itself, SIGKILL and SIGXCPU among them); it can make no other
     (seccomp), so nothing outlives it. The server kills a child through this server, by the pid
     of a child it has not reaped yet (never a pid that could be reused), and gets its exit status
     as this server's child.
  2. The child writes its uid and gid maps (unprivileged), makes a session of its own, connects
     twice to the server's socket `<socket>` (channel, then output: its fd 1 and fd 2), each time
     sending the token of its request first, and runs the runner with its request's start message,
     which confines it (confine.py, with `forked` set: a new capped tmpfs for its scratch covers
     the mount point, hiding the socket and `<proc>` with it; its seccomp filter is the one compiled
     here, with its pid written in) before it reads a program.

Channel (newline-delimited JSON, framed by the runner's channel.py as a child's channel is):
  server -> zygote  {"type":"fork","id":N,"token":"hex","env":{...},"start":{...}}
                                                        `start`: the runner's start message
  server -> zygote  {"type":"kill","id":N}                the child (SIGKILL), if not reaped yet
  zygote -> server  {"type":"ready"}                      once, when loaded
  zygote -> server  {"type":"exit","id":N,"code":int|null,"signal":int|null}
  zygote -> server  {"type":"fork_failed","id":N,"error":"..."}
The zygote exits when its channel closes, and dies with its parent (PR_SET_PDEATHSIG).

It imports the runner as any package: the runner's directory is registered as the package
`_ptc_runner` from its __init__.py (as runner.py registers it in a spawned child; nothing goes on
sys.path), and `_ptc_runner.runner` is imported; its preload() loads confine.py (and with it this
directory's modules, the package `_ptc_confine`) and the runner's own modules, as a program child
loads them.
"""

from __future__ import annotations

import ctypes
import errno
import importlib
import importlib.util
import os
import signal
import socket
import sys
from types import ModuleType
from typing import Any, NoReturn

_CHANNEL_FD = 3
_MAX_LINE = 1 << 20
_RUNNER_PACKAGE = "_ptc_runner"


def import_runner(runner_dir: str) -> ModuleType:
    """The runner's bootstrap module, `_ptc_runner.runner`, its package registered from
    `runner_dir`'s __init__.py first (the directory never goes on sys.path)."""
    if _RUNNER_PACKAGE not in sys.modules:
        init = os.path.join(runner_dir, "__init__.py")
        spec = importlib.util.spec_from_file_location(
            _RUNNER_PACKAGE, init, submodule_search_locations=[runner_dir]
        )
        if spec is None or spec.loader is None or not os.path.isfile(init):
            raise ImportError(f"{runner_dir}: not the runner's package (no __init__.py)")
        package = importlib.util.module_from_spec(spec)
        sys.modules[_RUNNER_PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{_RUNNER_PACKAGE}.runner")


class _Zygote:
    def __init__(
        self,
        runner: ModuleType,
        confine: ModuleType,
        socket_path: str,
        proc_path: str,
        namespaces: str,
    ) -> None:
        self.runner_main = runner.main
        self.private_fd: int = runner.PRIVATE_FD
        self.syscalls = confine.syscalls
        self.kernel = kernel = confine.kernel
        self.machine = kernel.machine()
        self.socket_path = socket_path
        self.proc_path = proc_path
        # Held, never released: raw clone() must run with the GIL, like os.fork().
        self.pylibc = ctypes.PyDLL(None, use_errno=True)
        self.pylibc.syscall.restype = ctypes.c_long
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.uid = os.getuid()
        self.gid = os.getgid()
        self.flags = kernel.CLONE_NEWNS | signal.SIGCHLD
        if os.geteuid() != 0:
            self.flags |= kernel.CLONE_NEWUSER
        named = {
            "ipc": kernel.CLONE_NEWIPC,
            "net": kernel.CLONE_NEWNET,
            "uts": kernel.CLONE_NEWUTS,
            "cgroup": kernel.CLONE_NEWCGROUP,
        }
        for name in filter(None, namespaces.split(",")):
            self.flags |= named[name]
        self.channel = runner.channel_from_fd(_CHANNEL_FD)
        self.pids: dict[int, Any] = {}  # pid -> request id, until reaped
        self.ids: dict[Any, int] = {}  # request id -> pid
        self.wake_fds: tuple[int, int] = (-1, -1)

    def send(self, message: dict[str, Any]) -> None:
        self.channel.send(message)

    def serve(self) -> NoReturn:
        import select

        wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.wake_fds = (wake_r, wake_w)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        poller = select.poll()
        poller.register(self.channel.sock.fileno(), select.POLLIN)
        poller.register(wake_r, select.POLLIN)
        self.send({"type": "ready"})
        while True:
            for fd, _ in poller.poll():
                if fd == wake_r:
                    try:
                        while os.read(wake_r, 256):
                            pass
                    except BlockingIOError:
                        pass
                else:
                    self.read_requests()
            self.reap()

    def read_requests(self) -> None:
        channel = self.channel
        if not channel.receive():
            os._exit(0)  # the server is gone: so are its children (PR_SET_PDEATHSIG)
        if sum(map(len, channel.partial)) > _MAX_LINE:
            os._exit(2)
        for request, _text in channel.messages():
            if request.get("type") == "fork":
                self.fork(request)
            elif request.get("type") == "kill":
                pid = self.ids.get(request.get("id"))
                if pid is not None:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

    def reap(self) -> None:
        while self.pids:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            request_id = self.pids.pop(pid, None)
            if request_id is None:
                continue
            del self.ids[request_id]
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            self.send({"type": "exit", "id": request_id, "code": code, "signal": sig})

    def clone(self) -> int:
        nr = self.syscalls.SYSCALLS["clone"][self.syscalls.ARCHES.index(self.machine)]
        api = ctypes.pythonapi
        api.PyOS_BeforeFork()
        ctypes.set_errno(0)
        zero = ctypes.c_void_p(0)
        pid = self.pylibc.syscall(ctypes.c_long(nr), ctypes.c_ulong(self.flags), zero, zero, zero, zero)
        if pid == 0:
            api.PyOS_AfterFork_Child()
            return 0
        err = ctypes.get_errno()
        api.PyOS_AfterFork_Parent()
        new_cgroup = self.kernel.CLONE_NEWCGROUP
        if pid < 0 and err == errno.EINVAL and self.flags & new_cgroup:
            # A kernel without cgroup namespaces (bwrap's --unshare-cgroup-try): the others hold.
            self.flags &= ~new_cgroup
            return self.clone()
        if pid < 0:
            raise OSError(err, f"clone: {os.strerror(err)}")
        return pid

    def fork(self, request: dict[str, Any]) -> None:
        request_id = request.get("id")
        try:
            sys.stderr.flush()
            pid = self.clone()
        except OSError as exc:
            self.send({"type": "fork_failed", "id": request_id, "error": str(exc), "errno": exc.errno})
            return
        if pid == 0:
            try:
                self.child(request)
            except BaseException as exc:  # nobody else can say why
                try:
                    os.write(2, f"ptc-mcp fork server: child {request_id}: {exc!r}\n".encode())
                finally:
                    os._exit(125)
            os._exit(125)
        self.pids[pid] = request_id
        self.ids[request_id] = pid

    # ---- in the child (the program's process, in namespaces of its own) ------------------------

    def child(self, request: dict[str, Any]) -> None:
        self.channel.forget()  # the requests after this one: other children's tokens
        # Other children's pids, which a program could read from this frame: none of its business.
        self.pids.clear()
        self.ids.clear()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # The server's channel and the wake-up pipe are the zygote's alone.
        self.channel.sock.detach()
        for fd in (_CHANNEL_FD, *self.wake_fds):
            try:
                os.close(fd)
            except OSError:
                pass
        self.libc.prctl(self.kernel.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if self.flags & self.kernel.CLONE_NEWUSER:
            proc = self.proc_path
            for name, text in (
                ("setgroups", "deny"),
                ("uid_map", f"{self.uid} {self.uid} 1"),
                ("gid_map", f"{self.gid} {self.gid} 1"),
            ):
                with open(f"{proc}/self/{name}", "w") as f:
                    f.write(text)
        self.program(request)
        os._exit(0)

    def program(self, request: dict[str, Any]) -> None:
        os.setsid()
        self.libc.prctl(self.kernel.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        token = str(request.get("token"))
        sockets = []
        for kind in ("channel", "output"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(self.socket_path)
            sock.sendall(f"{token} {kind}\n".encode())
            sockets.append(sock)
        channel, output = sockets
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(output.fileno(), 1)
        os.dup2(output.fileno(), 2)
        output.close()
        # Where the runner keeps its channel when it takes it from fd 3 (out of a program's way).
        private = os.dup2(channel.fileno(), self.private_fd, inheritable=False)
        channel.close()
        os.closerange(3, private)
        os.closerange(private + 1, 1 << 16)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in (request.get("env") or {}).items()})
        self.runner_main(private, request.get("start"))


def main() -> None:
    # The runner's directory, not its path: only program interpreters name runner.py.
    runner_dir, confine_path, socket_path, proc_path, namespaces = sys.argv[1:6]
    runner = import_runner(runner_dir)
    confine = runner.preload(confine_path)
    kernel = confine.kernel
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    confine.compiled_filter(kernel.machine(), 2)
    confine.privileges.last_cap()
    # What is loaded now is never collected: a child's collections then leave these pages shared.
    import gc

    gc.collect()
    gc.freeze()
    _Zygote(runner, confine, socket_path, proc_path, namespaces).serve()


if __name__ == "__main__":
    main()
