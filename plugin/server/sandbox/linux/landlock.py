"""The Landlock layer of the linux sandbox (SPEC §7): read-only interpreter and libraries, read-write
scratch without exec or device nodes, nothing else; TCP bind/connect denied (ABI >= 4); signals and
abstract unix sockets scoped to the sandbox (ABI >= 6).

Two steps, because the rules open their paths and a dropped uid may no longer reach them:
prepare_ruleset() while they are reachable, restrict_self() once no_new_privs is set.
apply_landlock() does both, for a caller with nothing in between.
"""

from __future__ import annotations

import ctypes
import os
import struct
from typing import Any

from .kernel import (
    LANDLOCK_ACCESS_FS_EXECUTE,
    LANDLOCK_ACCESS_FS_IOCTL_DEV,
    LANDLOCK_ACCESS_FS_MAKE_DIR,
    LANDLOCK_ACCESS_FS_MAKE_REG,
    LANDLOCK_ACCESS_FS_MAKE_SYM,
    LANDLOCK_ACCESS_FS_READ_DIR,
    LANDLOCK_ACCESS_FS_READ_FILE,
    LANDLOCK_ACCESS_FS_REFER,
    LANDLOCK_ACCESS_FS_REMOVE_DIR,
    LANDLOCK_ACCESS_FS_REMOVE_FILE,
    LANDLOCK_ACCESS_FS_TRUNCATE,
    LANDLOCK_ACCESS_FS_WRITE_FILE,
    LANDLOCK_ACCESS_NET_BIND_TCP,
    LANDLOCK_ACCESS_NET_CONNECT_TCP,
    LANDLOCK_CREATE_RULESET_VERSION,
    LANDLOCK_RULE_PATH_BENEATH,
    LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
    LANDLOCK_SCOPE_SIGNAL,
    ConfineError,
    syscall,
)

# The access rights that apply to a file (not a directory).
_FS_FILE_ONLY = (
    LANDLOCK_ACCESS_FS_EXECUTE
    | LANDLOCK_ACCESS_FS_WRITE_FILE
    | LANDLOCK_ACCESS_FS_READ_FILE
    | LANDLOCK_ACCESS_FS_TRUNCATE
    | LANDLOCK_ACCESS_FS_IOCTL_DEV
)

_READ_ONLY = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR
_DEVICE = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE
# No EXECUTE, no device nodes, fifos or sockets, no IOCTL_DEV.
_READ_WRITE = (
    LANDLOCK_ACCESS_FS_READ_FILE
    | LANDLOCK_ACCESS_FS_READ_DIR
    | LANDLOCK_ACCESS_FS_WRITE_FILE
    | LANDLOCK_ACCESS_FS_REMOVE_DIR
    | LANDLOCK_ACCESS_FS_REMOVE_FILE
    | LANDLOCK_ACCESS_FS_MAKE_DIR
    | LANDLOCK_ACCESS_FS_MAKE_REG
    | LANDLOCK_ACCESS_FS_MAKE_SYM
    | LANDLOCK_ACCESS_FS_REFER
    | LANDLOCK_ACCESS_FS_TRUNCATE
)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is absent or disabled."""
    try:
        return syscall(
            "landlock_create_ruleset",
            ctypes.c_void_p(None),
            ctypes.c_size_t(0),
            ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION),
        )
    except OSError:
        return 0


def prepare_ruleset(rules: dict[str, Any], abi: int) -> int:
    """Creates a ruleset for `abi` with the rules of `rules` (the spec's "landlock" object) and returns
    its fd, for restrict_self(). Paths are opened here: call it while they are still reachable (before
    the uid changes). A path that does not exist is skipped."""
    handled_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1  # every right of ABI 1
    if abi >= 2:
        handled_fs |= LANDLOCK_ACCESS_FS_REFER
    if abi >= 3:
        handled_fs |= LANDLOCK_ACCESS_FS_TRUNCATE
    if abi >= 5:
        handled_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV
    handled_net = (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL) if abi >= 6 else 0
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    attr = ctypes.create_string_buffer(struct.pack("<QQQ", handled_fs, handled_net, scoped)[:size], size)
    try:
        ruleset = syscall("landlock_create_ruleset", attr, ctypes.c_size_t(size), ctypes.c_uint32(0))
    except OSError as exc:
        raise ConfineError(f"Landlock: cannot create a ruleset: {exc}") from exc
    groups = (
        (rules.get("readOnly") or [], _READ_ONLY),
        (rules.get("devices") or [], _DEVICE),
        (rules.get("readWrite") or [], _READ_WRITE),
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
                syscall(
                    "landlock_add_rule",
                    ctypes.c_int(ruleset),
                    ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
                    rule,
                    ctypes.c_uint32(0),
                )
            except OSError as exc:
                raise ConfineError(f"Landlock: cannot add a rule for {path}: {exc}") from exc
            finally:
                os.close(fd)
    return ruleset


def _is_dir_fd(fd: int) -> bool:
    import stat

    return stat.S_ISDIR(os.fstat(fd).st_mode)


def restrict_self(ruleset: int) -> None:
    """Restricts this thread (and what it starts later) to `ruleset`, and closes the fd. Needs
    no_new_privs (or CAP_SYS_ADMIN)."""
    try:
        syscall("landlock_restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(0))
    except OSError as exc:
        raise ConfineError(f"Landlock: restrict_self failed: {exc}") from exc
    finally:
        os.close(ruleset)


def apply_landlock(rules: dict[str, Any], abi: int) -> None:
    """prepare_ruleset() then restrict_self(), for a caller that already set no_new_privs."""
    restrict_self(prepare_ruleset(rules, abi))
