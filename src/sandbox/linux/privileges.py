"""The privileges layer of the linux sandbox (SPEC §7, §15): rlimits, credentials and capabilities.

freeze_rlimits() makes every soft limit the hard one (the CPU limit keeps the hard one the runner set);
drop_privileges() gives up root and every capability; forbid_new_privileges() sets no_new_privs;
die_with_parent() arms the death signal (after the credential change, which clears it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import struct
from typing import Any

from .kernel import (
    CAP_SETPCAP,
    LINUX_CAPABILITY_VERSION_3,
    PR_CAP_AMBIENT,
    PR_CAP_AMBIENT_CLEAR_ALL,
    PR_CAPBSET_DROP,
    PR_CAPBSET_READ,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_PDEATHSIG,
    PR_SET_SECUREBITS,
    SECBIT_KEEP_CAPS_LOCKED,
    SECBIT_NO_CAP_AMBIENT_RAISE,
    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
    SECBIT_NO_SETUID_FIXUP_LOCKED,
    SECBIT_NOROOT,
    SECBIT_NOROOT_LOCKED,
    ConfineError,
    prctl,
    syscall,
)


def freeze_rlimits() -> None:
    """soft = hard for every limit: what the runner set, and what was inherited. RLIMIT_CPU keeps
    the finite hard limit the runner set from the start message (cpu_hard_seconds, a little above
    the soft one: SIGXCPU at the soft limit, which the parent names, SIGKILL at the hard one); an
    unlimited one becomes the soft value."""
    import resource

    for name in dir(resource):
        if not name.startswith("RLIMIT_"):
            continue
        which = getattr(resource, name)
        try:
            soft, hard = resource.getrlimit(which)
            frozen = soft
            if which == resource.RLIMIT_CPU and hard != resource.RLIM_INFINITY:
                frozen = hard
            if frozen != hard:
                resource.setrlimit(which, (soft, frozen))
        except (OSError, ValueError) as exc:
            raise ConfineError(f"cannot fix {name} at its soft value: {exc}") from exc


# NOROOT, NO_SETUID_FIXUP kept off, KEEP_CAPS off, NO_CAP_AMBIENT_RAISE; each of them locked.
_SECUREBITS = (
    SECBIT_NOROOT
    | SECBIT_NOROOT_LOCKED
    | SECBIT_NO_SETUID_FIXUP_LOCKED
    | SECBIT_KEEP_CAPS_LOCKED
    | SECBIT_NO_CAP_AMBIENT_RAISE
    | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED
)


_LAST_CAP: int | None = None


def _capget() -> dict[str, int]:
    header = ctypes.create_string_buffer(struct.pack("<Ii", LINUX_CAPABILITY_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(24)
    syscall("capget", header, data)
    e0, p0, i0, e1, p1, i1 = struct.unpack("<6I", data.raw)
    return {"effective": e0 | e1 << 32, "permitted": p0 | p1 << 32, "inheritable": i0 | i1 << 32}


def _capset_empty() -> None:
    header = ctypes.create_string_buffer(struct.pack("<Ii", LINUX_CAPABILITY_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(24)
    syscall("capset", header, data)


def last_cap() -> int:
    """The kernel's highest capability number: read once per process (a fork server's children
    have it from their server)."""
    global _LAST_CAP
    if _LAST_CAP is None:
        _LAST_CAP = _read_last_cap()
    return _LAST_CAP


def _read_last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        last = 0
        for cap in range(64):
            try:
                prctl(PR_CAPBSET_READ, cap)
                last = cap
            except OSError:
                break
        return last


def _bounding_set(last: int) -> list[int]:
    held = []
    for cap in range(last + 1):
        try:
            if prctl(PR_CAPBSET_READ, cap) == 1:
                held.append(cap)
        except OSError:
            break
    return held


def _unreachable_as(uid: int, gid: int, spec: dict[str, Any]) -> str | None:
    """The first path the interpreter needs that `uid` could not read, or scratch directory parent
    it could not reach (tested with the effective ids, which are put back afterwards); None if
    there is none."""
    landlock = spec.get("landlock") or {}
    wanted = []
    for path in (landlock.get("readOnly") or []) + (landlock.get("devices") or []):
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):
            continue  # not there: nothing to read
        wanted.append((path, os.R_OK | (os.X_OK if stat.S_ISDIR(mode) else 0)))
    for path in landlock.get("readWrite") or []:
        wanted.append((os.path.dirname(os.path.abspath(path)), os.X_OK))
    os.setegid(gid)
    os.seteuid(uid)
    try:
        return next((path for path, mode in wanted if not os.access(path, mode, effective_ids=True)), None)
    finally:
        os.seteuid(0)
        os.setegid(0)


def drop_target(spec: dict[str, Any]) -> tuple[int, int] | None:
    """The (uid, gid) root is to become, or None (not root, or nothing asked)."""
    drop = spec.get("dropRoot")
    if drop and (os.getuid() == 0 or os.geteuid() == 0):
        return int(drop["uid"]), int(drop["gid"])
    return None


def drop_privileges(spec: dict[str, Any]) -> str:
    """Root gives up root: it becomes `spec.dropRoot` when that uid can read what the interpreter
    needs, else it stays uid 0 without any capability; either way supplementary groups, the
    bounding set, permitted, effective, inheritable and ambient capabilities are emptied and the
    securebits locked. Call it after prepare_ruleset() (whose paths the new uid may not reach).
    Returns a description of the identity the program runs with."""
    last = last_cap()
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
    if _capget()["effective"] & (1 << CAP_SETPCAP):
        prctl(PR_SET_SECUREBITS, _SECUREBITS)
        for cap in range(last + 1):
            prctl(PR_CAPBSET_DROP, cap)
    if become is not None:
        uid, gid = become
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    try:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
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


def _chown_tree(top: str, uid: int, gid: int) -> None:
    """Gives uid/gid what lies on top's own file system; never crosses into a mount (bwrap's
    read-only binds of a checkout under /tmp, say)."""
    device = os.lstat(top).st_dev
    os.chown(top, uid, gid, follow_symlinks=False)
    try:
        with os.scandir(top) as entries:
            if next(entries, None) is None:
                return  # empty (a forked child's scratch dir, new on its own tmpfs): nothing to walk
    except OSError:
        return  # unreadable: os.walk skips it too
    for root, dirs, files in os.walk(top):
        for name in list(dirs):
            if os.lstat(os.path.join(root, name)).st_dev != device:
                dirs.remove(name)
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.lstat(path).st_dev == device:
                os.chown(path, uid, gid, follow_symlinks=False)


def forbid_new_privileges() -> None:
    """PR_SET_NO_NEW_PRIVS: no exec can ever grant a privilege again (Landlock and seccomp need it)."""
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def die_with_parent(parent: int) -> None:
    """SIGKILL when the parent dies. `parent` is its pid, read beforehand: if it is gone already, the
    signal would never come, so this exits at once."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(70)
