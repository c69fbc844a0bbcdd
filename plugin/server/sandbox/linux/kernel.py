"""Raw kernel calls for the confine modules (seccomp.py, landlock.py, privileges.py, confine.py),
and the one home of the kernel's numbers they need that the standard library lacks (prctl options,
clone and mount flags, capabilities, securebits, seccomp(2) and Landlock), named as the kernel's
headers name them; what errno, signal, socket, os, termios or resource have comes from there.

Standard library only: ctypes for the calls Python has no wrapper for, numbered by syscalls.py for
the architecture this process runs on.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
from typing import Any

from . import syscalls

# prctl options.
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_KEEPCAPS = 8
PR_GET_SECCOMP = 21
PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_MM = 35
PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_SPECULATION_CTRL = 53
PR_SET_PTRACER = 0x59616D61

# Capabilities (linux/capability.h) and the securebits (linux/securebits.h).
CAP_SETPCAP = 8
LINUX_CAPABILITY_VERSION_3 = 0x20080522
SECBIT_NOROOT = 1 << 0
SECBIT_NOROOT_LOCKED = 1 << 1
SECBIT_NO_SETUID_FIXUP_LOCKED = 1 << 3
SECBIT_KEEP_CAPS_LOCKED = 1 << 5
SECBIT_NO_CAP_AMBIENT_RAISE = 1 << 6
SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED = 1 << 7

# seccomp(2).
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1

# mount(2) flags.
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

# Landlock (linux/landlock.h): the calls' flags, then the access rights and scopes of a ruleset.
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
LANDLOCK_ACCESS_FS_EXECUTE = 1 << 0
LANDLOCK_ACCESS_FS_WRITE_FILE = 1 << 1
LANDLOCK_ACCESS_FS_READ_FILE = 1 << 2
LANDLOCK_ACCESS_FS_READ_DIR = 1 << 3
LANDLOCK_ACCESS_FS_REMOVE_DIR = 1 << 4
LANDLOCK_ACCESS_FS_REMOVE_FILE = 1 << 5
LANDLOCK_ACCESS_FS_MAKE_CHAR = 1 << 6
LANDLOCK_ACCESS_FS_MAKE_DIR = 1 << 7
LANDLOCK_ACCESS_FS_MAKE_REG = 1 << 8
LANDLOCK_ACCESS_FS_MAKE_SOCK = 1 << 9
LANDLOCK_ACCESS_FS_MAKE_FIFO = 1 << 10
LANDLOCK_ACCESS_FS_MAKE_BLOCK = 1 << 11
LANDLOCK_ACCESS_FS_MAKE_SYM = 1 << 12
LANDLOCK_ACCESS_FS_REFER = 1 << 13  # ABI 2
LANDLOCK_ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
LANDLOCK_ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5
LANDLOCK_ACCESS_NET_BIND_TCP = 1 << 0  # ABI 4
LANDLOCK_ACCESS_NET_CONNECT_TCP = 1 << 1
LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
LANDLOCK_SCOPE_SIGNAL = 1 << 1

ENOSYS = errno.ENOSYS

# clone/unshare flags: a thread, and the namespaces.
CLONE_THREAD = 0x00010000
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NAMESPACES = (
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
)


class ConfineError(Exception):
    """The sandbox could not be applied; the message says why and how to fix it."""


def machine() -> str:
    """This machine's architecture as syscalls.py names it ("x86_64", "aarch64", or another)."""
    name = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(name, name)


_libc: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL:
    """The C library, opened once, with errno kept for the calls made through it."""
    global _libc
    if _libc is None:
        loaded = ctypes.CDLL(None, use_errno=True)
        loaded.syscall.restype = ctypes.c_long
        loaded.prctl.restype = ctypes.c_int
        _libc = loaded
    return _libc


def call(name: str, *args: Any) -> None:
    """A C library function by name that returns 0, or -1 with errno; raises OSError."""
    ctypes.set_errno(0)
    if getattr(libc(), name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")


def syscall(name: str, *args: Any) -> int:
    """syscall(2) by name; raises OSError with the call's errno."""
    arch = machine()
    nr = syscalls.SYSCALLS[name][syscalls.ARCHES.index(arch)]
    if nr is None:
        raise OSError(ENOSYS, f"{name} does not exist on {arch}")
    ctypes.set_errno(0)
    result = libc().syscall(ctypes.c_long(nr), *args)
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")
    return result


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    """prctl(2); raises OSError with its errno."""
    ctypes.set_errno(0)
    result = libc().prctl(
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
