"""Confines the interpreter it runs in: the linux backend's layer 2 (SPEC §7).

The child's bootstrap (src/execution/runner.py) imports this file by absolute path and calls
`apply(spec)` after its rlimits and before it reads the program. Standard library only (ctypes for
the raw calls). Everything is applied to this process, in this order:

  1. every rlimit: soft = hard (the program can never raise one again);
  2. the bounds that need namespaces (namespaces.py): the scratch directory becomes a tmpfs capped
     in bytes and files, RLIMIT_NPROC counts this program's threads alone, and for root without
     bwrap the paths the interpreter reads are made reachable by the uid it drops to;
  3. a Landlock ruleset is prepared (paths opened while they are still reachable);
  4. root gives up root: it becomes `dropRoot.uid` (one per program) when that uid can read the
     interpreter (namespaces.py saw to it), else it stays uid 0 without any capability;
     either way supplementary groups, the bounding set, permitted, effective, inheritable and
     ambient capabilities are emptied and the securebits locked;
  5. PR_SET_NO_NEW_PRIVS, then PR_SET_PDEATHSIG(SIGKILL) (a credential change clears it);
  6. landlock_restrict_self: read-only interpreter and libraries, read-write scratch without exec
     or device nodes, nothing else; TCP bind/connect denied (ABI >= 4); signals and abstract unix
     sockets scoped to the sandbox (ABI >= 6);
  7. a seccomp filter (see POLICY below), on every thread.

The spec (built by src/sandbox/linux/index.ts):
  {"module": "/abs/confine.py", "tier": "linux:...", "namespace": bool,
   "dropRoot": {"uid": int, "gid": int} | null, "threads": int,
   "scratch": {"path": str, "mountPoint": str, "bytes": int, "files": int},
   "landlock": {"required": bool, "readOnly": [paths], "readWrite": [paths], "devices": [paths]},
   "seccomp": {"required": true}}
A path that does not exist is skipped. Anything that cannot be applied raises ConfineError, and
the runner then refuses to run the program.
"""

import ctypes
import os
import platform
import struct

__all__ = ["POLICY", "ConfineError", "apply", "build_seccomp_filter"]

_HERE = os.path.dirname(os.path.abspath(__file__))


class ConfineError(Exception):
    """The sandbox could not be applied; the message says why and how to fix it."""


def _load_sibling(name, file):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, os.path.join(_HERE, file))
    if spec is None or spec.loader is None:
        raise ConfineError(f"cannot load {file} next to {__file__}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_table = _load_sibling("_ptc_syscalls", "syscalls.py")
_namespaces = _load_sibling("_ptc_namespaces", "namespaces.py")

# ---------------------------------------------------------------------------------------------
# The seccomp policy. Default: allow (what threads, asyncio and the standard library need keeps
# working); these calls are refused. EPERM makes Python raise PermissionError.

_EPERM = 1
_ENOSYS = 38

_CLONE_THREAD = 0x00010000
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
_CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_AF_UNIX = 1
_PRIO_PROCESS = 0
# TIOCSTI (push input into a terminal), TIOCLINUX, TIOCCONS, TIOCSETD (line disciplines)
_TTY_IOCTLS = (0x5412, 0x541C, 0x541D, 0x5423)
# PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_KEEPCAPS, PR_SET_SECUREBITS, PR_SET_MM, PR_CAP_AMBIENT,
# PR_SET_SPECULATION_CTRL, PR_SET_PTRACER: nothing a program needs, each loosens something.
_PRCTL_DENIED = (1, 4, 8, 28, 35, 47, 53, 0x59616D61)

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
        "get_robust_list", "ioprio_set",
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
        "ioctl": ("arg_not_in", 1, _TTY_IOCTLS),
        "prctl": ("arg_not_in", 0, _PRCTL_DENIED),
        "kill": ("self_or_zero", 0),
        "tkill": ("self", 0),
        "tgkill": ("self", 0),
        "rt_sigqueueinfo": ("self", 0),
        "rt_tgsigqueueinfo": ("self", 0),
        "prlimit64": ("self_or_zero", 0),
        "setpriority": ("priority_self",),
        "sched_setaffinity": ("self_or_zero", 0),
        "sched_setscheduler": ("self_or_zero", 0),
        "sched_setparam": ("self_or_zero", 0),
        "sched_setattr": ("self_or_zero", 0),
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


def _arg_low(index):
    """Offset of the low 32 bits of syscall argument `index` (pid_t, int and flags are 32-bit)."""
    return 16 + 8 * index


class _Assembler:
    def __init__(self):
        self.code = []
        self.labels = {}

    def label(self, name):
        self.labels[name] = len(self.code)

    def load(self, offset):
        self.code.append((_LD_W_ABS, 0, 0, offset))

    def ret(self, value):
        self.code.append((_RET, 0, 0, value))

    def jump(self, op, k, jt=0, jf=0):
        """jt / jf: 0 = next instruction, or the name of a label further on."""
        self.code.append((op, jt, jf, k))

    def build(self):
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


def build_seccomp_filter(arch, self_pid):
    """The filter as bytes of `struct sock_filter`, for `arch` ("x86_64" or "aarch64").

    `self_pid` is the pid as this process sees it (its own pid namespace): signals, prlimit and
    scheduling calls may name it or 0, nothing else."""
    if arch not in _table.ARCHES:
        raise ConfineError(f"seccomp: no syscall table for architecture {arch!r}")
    column = _table.ARCHES.index(arch)

    def number(name):
        entry = _table.SYSCALLS.get(name)
        if entry is None:
            raise ConfineError(f"seccomp: {name} is missing from syscalls.py")
        return entry[column]

    asm = _Assembler()
    # Another architecture's calling convention (i386 through int 0x80 on x86_64, say) would make
    # every number below mean something else: kill the process.
    asm.load(_OFF_ARCH)
    asm.jump(_JEQ, _table.AUDIT_ARCH[arch], 1, 0)
    asm.ret(_RET_KILL_PROCESS)
    asm.load(_OFF_NR)
    # Unknown to this table (a newer kernel's calls, x86_64's x32 numbers): not allowed.
    asm.jump(_JGT, _table.MAX_KNOWN, 0, 1)
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
            asm.jump(_JSET, _CLONE_THREAD, 0, deny)
            asm.jump(_JSET, _CLONE_NAMESPACES, deny, allow)
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


# ---------------------------------------------------------------------------------------------
# Raw calls.

_libc = None
_arch = None


def _machine():
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def _syscall(name, *args):
    nr = _table.SYSCALLS[name][_table.ARCHES.index(_arch)]
    if nr is None:
        raise OSError(38, f"{name} does not exist on {_arch}")
    ctypes.set_errno(0)
    result = _libc.syscall(ctypes.c_long(nr), *args)
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")
    return result


def _prctl(option, arg2=0, arg3=0, arg4=0, arg5=0):
    ctypes.set_errno(0)
    result = _libc.prctl(
        ctypes.c_int(option),
        ctypes.c_ulong(arg2),
        ctypes.c_ulong(arg3),
        ctypes.c_ulong(arg4),
        ctypes.c_ulong(arg5),
    )
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")
    return result


_PR_SET_PDEATHSIG = 1
_PR_GET_SECCOMP = 21
_PR_CAPBSET_READ = 23
_PR_CAPBSET_DROP = 24
_PR_SET_SECUREBITS = 28
_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_NO_NEW_PRIVS = 39
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SIGKILL = 9

# ---------------------------------------------------------------------------------------------
# rlimits


def _freeze_rlimits():
    """soft = hard for every limit: what the runner set, and what was inherited."""
    import resource

    for name in dir(resource):
        if not name.startswith("RLIMIT_"):
            continue
        which = getattr(resource, name)
        try:
            soft, hard = resource.getrlimit(which)
            if soft != hard:
                resource.setrlimit(which, (soft, soft))
        except (OSError, ValueError) as exc:
            raise ConfineError(f"cannot fix {name} at its soft value: {exc}") from exc


# ---------------------------------------------------------------------------------------------
# Landlock

_LL_CREATE_RULESET_VERSION = 1
_LL_RULE_PATH_BENEATH = 1
_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_REMOVE_DIR = 1 << 4
_FS_REMOVE_FILE = 1 << 5
_FS_MAKE_CHAR = 1 << 6
_FS_MAKE_DIR = 1 << 7
_FS_MAKE_REG = 1 << 8
_FS_MAKE_SOCK = 1 << 9
_FS_MAKE_FIFO = 1 << 10
_FS_MAKE_BLOCK = 1 << 11
_FS_MAKE_SYM = 1 << 12
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
_FS_FILE_ONLY = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1

_READ_ONLY = _FS_READ_FILE | _FS_READ_DIR
_DEVICE = _FS_READ_FILE | _FS_WRITE_FILE
# No EXECUTE, no device nodes, fifos or sockets, no IOCTL_DEV.
_READ_WRITE = (
    _FS_READ_FILE
    | _FS_READ_DIR
    | _FS_WRITE_FILE
    | _FS_REMOVE_DIR
    | _FS_REMOVE_FILE
    | _FS_MAKE_DIR
    | _FS_MAKE_REG
    | _FS_MAKE_SYM
    | _FS_REFER
    | _FS_TRUNCATE
)


def landlock_abi():
    """The kernel's Landlock ABI version, 0 when Landlock is absent or disabled."""
    try:
        return _syscall(
            "landlock_create_ruleset",
            ctypes.c_void_p(None),
            ctypes.c_size_t(0),
            ctypes.c_uint32(_LL_CREATE_RULESET_VERSION),
        )
    except OSError:
        return 0


def _landlock_prepare(spec, abi):
    """Creates the ruleset and adds the rules; returns its fd (restricted later)."""
    handled_fs = (1 << 13) - 1
    if abi >= 2:
        handled_fs |= _FS_REFER
    if abi >= 3:
        handled_fs |= _FS_TRUNCATE
    if abi >= 5:
        handled_fs |= _FS_IOCTL_DEV
    handled_net = (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    attr = ctypes.create_string_buffer(struct.pack("<QQQ", handled_fs, handled_net, scoped)[:size], size)
    try:
        ruleset = _syscall("landlock_create_ruleset", attr, ctypes.c_size_t(size), ctypes.c_uint32(0))
    except OSError as exc:
        raise ConfineError(f"Landlock: cannot create a ruleset: {exc}") from exc
    groups = (
        (spec.get("readOnly") or [], _READ_ONLY),
        (spec.get("devices") or [], _DEVICE),
        (spec.get("readWrite") or [], _READ_WRITE),
    )
    for paths, access in groups:
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise ConfineError(f"Landlock: cannot open {path}: {exc}") from exc
            try:
                allowed = access & handled_fs
                if not _is_dir_fd(fd):
                    allowed &= _FS_FILE_ONLY
                rule = ctypes.create_string_buffer(struct.pack("<Qi", allowed, fd), 12)
                _syscall(
                    "landlock_add_rule",
                    ctypes.c_int(ruleset),
                    ctypes.c_int(_LL_RULE_PATH_BENEATH),
                    rule,
                    ctypes.c_uint32(0),
                )
            except OSError as exc:
                raise ConfineError(f"Landlock: cannot add a rule for {path}: {exc}") from exc
            finally:
                os.close(fd)
    return ruleset


def _is_dir_fd(fd):
    import stat

    return stat.S_ISDIR(os.fstat(fd).st_mode)


# ---------------------------------------------------------------------------------------------
# Credentials and capabilities

_CAP_SETPCAP = 8
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
# NOROOT, NO_SETUID_FIXUP kept off, KEEP_CAPS off, NO_CAP_AMBIENT_RAISE; each of them locked.
_SECUREBITS = (1 << 0) | (1 << 1) | (1 << 3) | (1 << 5) | (1 << 6) | (1 << 7)


def _capget():
    header = ctypes.create_string_buffer(struct.pack("<Ii", _LINUX_CAPABILITY_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(24)
    _syscall("capget", header, data)
    e0, p0, i0, e1, p1, i1 = struct.unpack("<6I", data.raw)
    return {"effective": e0 | e1 << 32, "permitted": p0 | p1 << 32, "inheritable": i0 | i1 << 32}


def _capset_empty():
    header = ctypes.create_string_buffer(struct.pack("<Ii", _LINUX_CAPABILITY_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(24)
    _syscall("capset", header, data)


def _last_cap():
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        last = 0
        for cap in range(64):
            try:
                _prctl(_PR_CAPBSET_READ, cap)
                last = cap
            except OSError:
                break
        return last


def _bounding_set(last):
    held = []
    for cap in range(last + 1):
        try:
            if _prctl(_PR_CAPBSET_READ, cap) == 1:
                held.append(cap)
        except OSError:
            break
    return held


def _unreachable_as(uid, gid, spec):
    """The first path the interpreter needs that `uid` could not read, or scratch directory parent
    it could not reach (tested with the effective ids, which are put back afterwards); None if
    there is none."""
    landlock = spec.get("landlock") or {}
    wanted = []
    for path in (landlock.get("readOnly") or []) + (landlock.get("devices") or []):
        if os.path.exists(path):
            wanted.append((path, os.R_OK | (os.X_OK if os.path.isdir(path) else 0)))
    for path in landlock.get("readWrite") or []:
        wanted.append((os.path.dirname(os.path.abspath(path)), os.X_OK))
    os.setegid(gid)
    os.seteuid(uid)
    try:
        return next((path for path, mode in wanted if not os.access(path, mode, effective_ids=True)), None)
    finally:
        os.seteuid(0)
        os.setegid(0)


def _drop_target(spec):
    """The (uid, gid) root is to become, or None (not root, or nothing asked)."""
    drop = spec.get("dropRoot")
    if drop and (os.getuid() == 0 or os.geteuid() == 0):
        return int(drop["uid"]), int(drop["gid"])
    return None


def _give_up_privileges(spec):
    """Returns a description of the identity the program runs with."""
    last = _last_cap()
    drop = spec.get("dropRoot")
    is_root = os.getuid() == 0 or os.geteuid() == 0
    become = None
    unreachable = None
    if is_root:
        os.setgroups([])
        if drop:
            unreachable = _unreachable_as(int(drop["uid"]), int(drop["gid"]), spec)
        if drop and unreachable is None:
            become = (int(drop["uid"]), int(drop["gid"]))
            for path in (spec.get("landlock") or {}).get("readWrite") or []:
                _chown_tree(path, *become)
    if _capget()["effective"] & (1 << _CAP_SETPCAP):
        _prctl(_PR_SET_SECUREBITS, _SECUREBITS)
        for cap in range(last + 1):
            _prctl(_PR_CAPBSET_DROP, cap)
    if become is not None:
        uid, gid = become
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    try:
        _prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
    except OSError:
        pass  # kernels before 4.3 have no ambient set
    _capset_empty()
    caps = _capget()
    if any(caps.values()):
        raise ConfineError(f"capabilities are still held after dropping them: {caps}")
    if os.getuid() == 0 or os.geteuid() == 0:
        if _bounding_set(last):
            raise ConfineError("uid 0 kept capabilities in its bounding set")
        if become is None:
            what = unreachable or "the interpreter"
            return f"uid 0 without capabilities ({what} is not readable by an unprivileged uid)"
    return f"uid {os.getuid()}"


def _chown_tree(top, uid, gid):
    """Gives uid/gid what lies on top's own file system; never crosses into a mount (bwrap's
    read-only binds of a checkout under /tmp, say)."""
    device = os.lstat(top).st_dev
    os.chown(top, uid, gid, follow_symlinks=False)
    for root, dirs, files in os.walk(top):
        for name in list(dirs):
            if os.lstat(os.path.join(root, name)).st_dev != device:
                dirs.remove(name)
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.lstat(path).st_dev == device:
                os.chown(path, uid, gid, follow_symlinks=False)


# ---------------------------------------------------------------------------------------------
# seccomp


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1


def _install_seccomp(program):
    count = len(program) // 8
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(count, ctypes.cast(buffer, ctypes.c_void_p))
    try:
        result = _syscall(
            "seccomp",
            ctypes.c_uint(_SECCOMP_SET_MODE_FILTER),
            ctypes.c_uint(_SECCOMP_FILTER_FLAG_TSYNC),
            ctypes.byref(fprog),
        )
    except OSError as exc:
        raise ConfineError(
            f"seccomp: the kernel refused the filter ({exc}); it needs CONFIG_SECCOMP_FILTER"
        ) from exc
    if result != 0:
        raise ConfineError(f"seccomp: thread {result} could not be synchronised")


# ---------------------------------------------------------------------------------------------


_filters = {}


def _compiled_filter(arch, self_pid):
    """build_seccomp_filter, once per (arch, pid): a fork server's children all run as pid 2 of
    their own PID namespace and share the compiled filter."""
    key = (arch, self_pid)
    if key not in _filters:
        _filters[key] = build_seccomp_filter(arch, self_pid)
    return _filters[key]


def _single_threaded():
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        import threading

        return threading.active_count() == 1


def apply(spec):
    """Applies `spec` to this process for good. Returns a JSON-serialisable report."""
    global _libc, _arch
    if not isinstance(spec, dict):
        raise ConfineError("confine spec must be an object")
    if os.uname().sysname != "Linux":
        raise ConfineError("the linux sandbox runs on Linux only")
    _arch = _machine()
    if _arch not in _table.ARCHES:
        raise ConfineError(
            f"no seccomp syscall table for {_arch}: supported are {', '.join(_table.ARCHES)};"
            " use execution.sandbox: none to run without isolation"
        )
    if not _single_threaded():
        raise ConfineError("confinement must happen before any thread starts (Landlock is per thread)")
    _libc = ctypes.CDLL(None, use_errno=True)
    _libc.syscall.restype = ctypes.c_long
    _libc.prctl.restype = ctypes.c_int
    try:
        _prctl(_PR_GET_SECCOMP)
    except OSError as exc:
        raise ConfineError(
            "seccomp is not available in this kernel (CONFIG_SECCOMP); the linux sandbox needs it"
        ) from exc

    _freeze_rlimits()
    try:
        bounds = _namespaces.apply(spec, _libc, _drop_target(spec))
    except OSError as exc:
        raise ConfineError(f"cannot set up the program's bounds: {exc}") from exc

    landlock = spec.get("landlock") or {}
    abi = landlock_abi()
    if abi < 1 and landlock.get("required", True):
        raise ConfineError(
            "Landlock is not available: it needs Linux >= 5.13 built with CONFIG_SECURITY_LANDLOCK"
            " and 'landlock' in the active LSM list (lsm= boot parameter); without it the linux"
            " sandbox needs bwrap (install bubblewrap)"
        )
    ruleset = _landlock_prepare(landlock, abi) if abi >= 1 else None
    program = _compiled_filter(_arch, os.getpid())

    identity = _give_up_privileges(spec)
    if os.getuid() == 0 and bounds.get("threads"):
        bounds["threads"] = f"none: the program kept uid 0, which RLIMIT_NPROC exempts ({identity})"

    parent = os.getppid()
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    _prctl(_PR_SET_PDEATHSIG, _SIGKILL)
    if os.getppid() != parent:
        os._exit(70)  # the parent died before the death signal was armed

    if ruleset is not None:
        try:
            _syscall("landlock_restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(0))
        except OSError as exc:
            raise ConfineError(f"Landlock: restrict_self failed: {exc}") from exc
        finally:
            os.close(ruleset)

    _install_seccomp(program)

    if _prctl(_PR_GET_NO_NEW_PRIVS) != 1 or _prctl(_PR_GET_SECCOMP) != 2:
        raise ConfineError("no_new_privs or the seccomp filter did not take effect")
    return {
        "tier": spec.get("tier"),
        "landlockAbi": abi,
        "seccomp": True,
        "identity": identity,
        "namespace": bool(spec.get("namespace")),
        "bounds": bounds,
    }
