"""The seccomp layer of the linux sandbox (SPEC §7): the policy as data, the classic-BPF filter
built from it, and its installation.

POLICY reads like the policy it is; build_seccomp_filter() compiles it for one architecture of
syscalls.py (test/sandbox/seccomp_emulator.py runs the result in a BPF interpreter for each);
install_seccomp() puts it on every thread of this process, for good.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import struct
import termios

from . import syscalls
from .kernel import (
    CLONE_NAMESPACES,
    CLONE_THREAD,
    PR_CAP_AMBIENT,
    PR_SET_DUMPABLE,
    PR_SET_KEEPCAPS,
    PR_SET_MM,
    PR_SET_PDEATHSIG,
    PR_SET_PTRACER,
    PR_SET_SECUREBITS,
    PR_SET_SPECULATION_CTRL,
    SECCOMP_FILTER_FLAG_TSYNC,
    SECCOMP_SET_MODE_FILTER,
    ConfineError,
    syscall,
)

# The policy. Default: allow (what threads, asyncio and the standard library need keeps working);
# these calls are refused. EPERM makes Python raise PermissionError.

_EPERM = errno.EPERM
_ENOSYS = errno.ENOSYS

_AF_UNIX = socket.AF_UNIX
_PRIO_PROCESS = os.PRIO_PROCESS
# Push input into a terminal, TIOCLINUX, the console, line disciplines; and name the process a
# descriptor signals when it is ready (FIOSETOWN, SIOCSPGRP: any pid or group, as F_SETOWN below).
_DENIED_IOCTLS = (termios.TIOCSTI, termios.TIOCLINUX, termios.TIOCCONS, termios.TIOCSETD, 0x8901, 0x8902)
# F_SETOWN, F_SETSIG, F_SETOWN_EX: with O_ASYNC, a descriptor's owner gets SIGIO (or any signal
# chosen) when it is ready, checked by uid alone: another program, the fork server, serve.
_DENIED_FCNTLS = (8, 10, 15)
# A clock id of a process's or thread's CPU clock encodes its pid as ~pid << 3, and the kernel lets
# any process read any pid's: allowed are the fixed clocks (>= 0) and the CPU clocks of pid 0 (this
# process, this thread), 0xFFFFFFF8 and up as 32 bits.
_OWN_CPU_CLOCKS = 0xFFFFFFF8
# Nothing a program needs, each loosens something.
_PRCTL_DENIED = (
    PR_SET_PDEATHSIG,
    PR_SET_DUMPABLE,
    PR_SET_KEEPCAPS,
    PR_SET_SECUREBITS,
    PR_SET_MM,
    PR_CAP_AMBIENT,
    PR_SET_SPECULATION_CTRL,
    PR_SET_PTRACER,
)

POLICY = {
    # Refused with EPERM.
    "deny": (
        # no new programs, no new processes (threads are clone with CLONE_THREAD, below)
        "execve", "execveat", "fork", "vfork",
        # no network: socket() is refused outright; socketpair(AF_UNIX) is allowed below
        "socket", "bind", "listen", "connect", "accept", "accept4",
        # no reaching into other processes
        "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd",
        "pidfd_send_signal", "process_madvise", "process_mrelease", "migrate_pages", "move_pages",
        "get_robust_list", "ioprio_set", "ioprio_get",
        # no mounts, namespaces, file handles
        "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_tree", "open_tree_attr",
        "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "statmount",
        "listmount", "name_to_handle_at", "open_by_handle_at", "quotactl", "quotactl_fd",
        # kernel surfaces a program has no use for
        "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
        "io_uring_setup", "io_uring_enter", "io_uring_register",
        "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
        "vmsplice", "memfd_secret",
        # memory outside RLIMIT_AS: a memfd's pages are counted by no limit of this process
        "memfd_create", "lsm_set_self_attr", "personality", "modify_ldt", "uselib",
        "ustat", "sysfs", "_sysctl", "lookup_dcookie", "nfsservctl", "syslog", "vhangup", "acct",
        "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module",
        "finit_module", "delete_module", "iopl", "ioperm", "settimeofday", "clock_settime",
        "adjtimex", "clock_adjtime", "sethostname", "setdomainname",
        "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "seccomp",
        # SysV and POSIX IPC
        "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
        "semget", "semop", "semctl", "semtimedop",
        "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
        # metadata Landlock does not cover: modes, owners, times, xattrs, device nodes, watches
        "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
        "utime", "utimes", "utimensat", "futimesat",
        "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
        "setxattrat", "removexattrat", "file_setattr", "mknod", "mknodat",
        "inotify_add_watch", "fanotify_init", "fanotify_mark",
        # identity stays as set up here
        "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid",
        "setfsgid", "setgroups", "capset",
    ),
    # Refused with ENOSYS, so that glibc falls back to clone(), which the rule below judges.
    "nosys": ("clone3",),
    # Allowed only with these arguments, else EPERM.
    "args": {
        "clone": ("thread_only",),
        "socketpair": ("arg_eq", 0, _AF_UNIX),
        # Space is allocated only as the file grows (mode 0), within RLIMIT_FSIZE: FALLOC_FL_KEEP_SIZE
        # would allocate past the end of the file, which that limit does not see (SPEC §15).
        "fallocate": ("arg_eq", 1, 0),
        "ioctl": ("arg_not_in", 1, _DENIED_IOCTLS),
        "fcntl": ("arg_not_in", 1, _DENIED_FCNTLS),
        "prctl": ("arg_not_in", 0, _PRCTL_DENIED),
        "kill": ("self_or_zero", 0),
        "tkill": ("self", 0),
        "tgkill": ("self", 0),
        "rt_sigqueueinfo": ("self", 0),
        "rt_tgsigqueueinfo": ("self", 0),
        "prlimit64": ("self_or_zero", 0),
        "setpriority": ("priority_self",),
        # Programs share the session's PID namespace (zygote.py): none may ask after another's pid.
        "getpriority": ("priority_self",),
        "getpgid": ("self_or_zero", 0),
        "getsid": ("self_or_zero", 0),
        "sched_getaffinity": ("self_or_zero", 0),
        "sched_getscheduler": ("self_or_zero", 0),
        "sched_getparam": ("self_or_zero", 0),
        "sched_getattr": ("self_or_zero", 0),
        "sched_rr_get_interval": ("self_or_zero", 0),
        "sched_setaffinity": ("self_or_zero", 0),
        "sched_setscheduler": ("self_or_zero", 0),
        "sched_setparam": ("self_or_zero", 0),
        "sched_setattr": ("self_or_zero", 0),
        "clock_gettime": ("own_clock",),
        "clock_getres": ("own_clock",),
        "clock_nanosleep": ("own_clock",),
        "timer_create": ("own_clock",),
    },
}

# Classic BPF, as seccomp runs it.
_LD_W_ABS = 0x20
_JEQ = 0x15
_JGT = 0x25
_JSET = 0x45
_RET = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_OFF_NR = 0
_OFF_ARCH = 4


def _arg_low(index: int) -> int:
    """Offset of the low 32 bits of syscall argument `index` (pid_t, int and flags are 32-bit)."""
    return 16 + 8 * index


class _Assembler:
    def __init__(self) -> None:
        self.code: list[tuple[int, int | str, int | str, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def load(self, offset: int) -> None:
        self.code.append((_LD_W_ABS, 0, 0, offset))

    def ret(self, value: int) -> None:
        self.code.append((_RET, 0, 0, value))

    def jump(self, op: int, k: int, jt: int | str = 0, jf: int | str = 0) -> None:
        """jt / jf: 0 = next instruction, or the name of a label further on."""
        self.code.append((op, jt, jf, k))

    def build(self) -> bytes:
        out = []
        for at, (op, jt, jf, k) in enumerate(self.code):
            offsets = []
            for target in (jt, jf):
                if isinstance(target, str):
                    target = self.labels[target] - at - 1
                if not 0 <= target <= 255:
                    raise ConfineError(f"seccomp filter: jump out of range at instruction {at}")
                offsets.append(target)
            out.append(struct.pack("<HBBI", op, offsets[0], offsets[1], k & 0xFFFFFFFF))
        return b"".join(out)


def build_seccomp_filter(arch: str, self_pid: int) -> bytes:
    """The filter as bytes of `struct sock_filter`, for `arch` ("x86_64" or "aarch64").

    `self_pid` is the pid as this process sees it (its own pid namespace): signals, prlimit and
    scheduling calls may name it or 0, nothing else."""
    if arch not in syscalls.ARCHES:
        raise ConfineError(f"seccomp: no syscall table for architecture {arch!r}")
    column = syscalls.ARCHES.index(arch)

    def number(name: str) -> int | None:
        entry = syscalls.SYSCALLS.get(name)
        if entry is None:
            raise ConfineError(f"seccomp: {name} is missing from syscalls.py")
        return entry[column]

    asm = _Assembler()
    # Another architecture's calling convention (i386 through int 0x80 on x86_64, say) would make
    # every number below mean something else: kill the process.
    asm.load(_OFF_ARCH)
    asm.jump(_JEQ, syscalls.AUDIT_ARCH[arch], 1, 0)
    asm.ret(_RET_KILL_PROCESS)
    asm.load(_OFF_NR)
    # Unknown to this table (a newer kernel's calls, x86_64's x32 numbers): not allowed.
    asm.jump(_JGT, syscalls.MAX_KNOWN, 0, 1)
    asm.ret(_RET_ERRNO | _ENOSYS)
    for name in POLICY["nosys"]:
        nr = number(name)
        if nr is not None:
            asm.jump(_JEQ, nr, 0, 1)
            asm.ret(_RET_ERRNO | _ENOSYS)
    for name in POLICY["deny"]:
        nr = number(name)
        if nr is not None:
            asm.jump(_JEQ, nr, 0, 1)
            asm.ret(_RET_ERRNO | _EPERM)
    for name, rule in POLICY["args"].items():
        nr = number(name)
        if nr is None:
            continue
        skip, allow, deny = f"{name}.skip", f"{name}.allow", f"{name}.deny"
        asm.jump(_JEQ, nr, 0, skip)
        kind = rule[0]
        if kind == "thread_only":
            asm.load(_arg_low(0))
            asm.jump(_JSET, CLONE_THREAD, 0, deny)
            asm.jump(_JSET, CLONE_NAMESPACES, deny, allow)
        elif kind == "arg_eq":
            asm.load(_arg_low(rule[1]))
            asm.jump(_JEQ, rule[2], allow, deny)
        elif kind == "arg_not_in":
            asm.load(_arg_low(rule[1]))
            for value in rule[2]:
                asm.jump(_JEQ, value, deny, 0)
            asm.ret(_RET_ALLOW)
        elif kind == "self":
            asm.load(_arg_low(rule[1]))
            asm.jump(_JEQ, self_pid, allow, deny)
        elif kind == "self_or_zero":
            asm.load(_arg_low(rule[1]))
            asm.jump(_JEQ, self_pid, allow, 0)
            asm.jump(_JEQ, 0, allow, deny)
        elif kind == "own_clock":
            asm.load(_arg_low(0))
            asm.jump(_JSET, 0x80000000, 0, allow)
            asm.jump(_JGT, _OWN_CPU_CLOCKS - 1, allow, deny)
        elif kind == "priority_self":
            asm.load(_arg_low(0))
            asm.jump(_JEQ, _PRIO_PROCESS, 0, deny)
            asm.load(_arg_low(1))
            asm.jump(_JEQ, self_pid, allow, 0)
            asm.jump(_JEQ, 0, allow, deny)
        else:
            raise ConfineError(f"seccomp: unknown rule {kind!r} for {name}")
        asm.label(allow)
        asm.ret(_RET_ALLOW)
        asm.label(deny)
        asm.ret(_RET_ERRNO | _EPERM)
        asm.label(skip)
    asm.ret(_RET_ALLOW)
    return asm.build()


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp(program: bytes) -> None:
    """Installs `program` (build_seccomp_filter's bytes) on every thread of this process. Needs
    no_new_privs (or CAP_SYS_ADMIN); nothing undoes it."""
    count = len(program) // 8
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(count, ctypes.cast(buffer, ctypes.c_void_p))
    try:
        result = syscall(
            "seccomp",
            ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
            ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
            ctypes.byref(fprog),
        )
    except OSError as exc:
        raise ConfineError(
            f"seccomp: the kernel refused the filter ({exc}); it needs CONFIG_SECCOMP_FILTER"
        ) from exc
    if result != 0:
        raise ConfineError(f"seccomp: thread {result} could not be synchronised")
