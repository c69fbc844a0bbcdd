"""Per-program bounds that need namespaces, applied by confine.py before Landlock (SPEC §7, §15).

  * Scratch space: the scratch directory is a private tmpfs of `scratch.bytes` bytes and
    `scratch.files` inodes. Inside bwrap, bwrap's tmpfs is remounted with these limits (bwrap
    itself cannot cap inodes); without bwrap, a new mount namespace gets a fresh tmpfs at the
    scratch path. Nothing the program writes reaches the host's disk, and it all goes with the
    namespace.
  * Threads: RLIMIT_NPROC counts the tasks of one real uid in one user namespace, and never binds
    uid 0. Root's child drops to a uid of its own (`dropRoot`, one per program); an unprivileged
    child without bwrap enters a user namespace of its own (bwrap made one already), so the limit
    counts this program's threads only, not every process of the user.
  * Root without bwrap: in the same mount namespace, each directory the dropped uid cannot
    traverse on the way to what the interpreter reads (pyenv under /root 0700) is covered by a
    small tmpfs holding binds of exactly those paths, at their own paths: the program then runs
    as its own uid with its standard library where it always was.

Without the kernel support (no unprivileged user namespaces, a container that refuses mounts)
each step reports the weaker bound in force instead; `apply` returns what holds.
"""

from __future__ import annotations

import ctypes
import os
import resource
from typing import Any

from .kernel import (
    CLONE_NEWNS,
    CLONE_NEWUSER,
    MS_BIND,
    MS_NODEV,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    call,
)


def _encode(value: str | None) -> bytes | None:
    return None if value is None else os.fsencode(value)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    call("mount", _encode(source), _encode(target), _encode(fstype), ctypes.c_ulong(flags), _encode(data))


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def apply(spec: dict[str, Any], drop: tuple[int, int] | None) -> dict[str, str | None]:
    """Applies the scratch, thread and path bounds. `drop` is the (uid, gid) root will become, or
    None. Returns a report: {"scratch": str, "threads": str, "paths": str | None}."""
    scratch = spec.get("scratch") or {}
    threads = spec.get("threads")
    report: dict[str, str | None] = {"scratch": None, "threads": None, "paths": None}
    is_root = os.geteuid() == 0
    namespace = bool(spec.get("namespace"))
    mounts = namespace
    if spec.get("forked"):
        # A fork server made this process in a mount namespace of its own (and a user namespace
        # when unprivileged): see zygote.py. Nothing to unshare; the mounts stay its own.
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        mounts = True
        if not is_root:
            report["threads"] = "user namespace"
    elif not namespace and spec.get("ownNamespaces") is False:
        report["scratch"] = "on the host file system, watched by the server (namespaces turned off)"
    elif not namespace:
        try:
            if is_root:
                call("unshare", ctypes.c_int(CLONE_NEWNS))
            else:
                _enter_user_namespace()
                report["threads"] = "user namespace"
            _mount(None, "/", None, MS_REC | MS_PRIVATE)
            mounts = True
        except OSError as exc:
            report["scratch"] = f"on the host file system, watched by the server ({exc.strerror})"
            # What the run's sandbox line names (SPEC §15): the host has none to give (off,
            # capped or exhausted); the program runs all the same, in Landlock + seccomp.
            kind = "namespaces" if is_root else "user namespaces"
            report["namespaces"] = f"no {kind}: {exc.strerror}"
    if mounts and is_root and drop is not None and not namespace:
        report["paths"] = _reach_as(spec, *drop)
    if mounts and scratch.get("path"):
        _mount_scratch(scratch, namespace, drop if is_root else None, bool(spec.get("forked")))
        report["scratch"] = f"tmpfs of {scratch['bytes']} bytes and {scratch['files']} files"
    elif scratch.get("bytes"):
        report["scratch"] = f"{report['scratch']}; {_host_file_bound(int(scratch['bytes']))}"
    if threads:
        limit = int(threads)
        if is_root and drop is None:
            report["threads"] = "none: uid 0 is exempt from RLIMIT_NPROC"
        elif is_root:
            report["threads"] = "a uid of its own"
        elif namespace:
            report["threads"] = "user namespace"
        elif report["threads"] is None:
            # Shared with every process of this user: this one's share is what runs now + limit.
            limit += _tasks_of(os.getuid())
            report["threads"] = "shared with the user's processes (no user namespace)"
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        report["threads"] = f"{threads} ({report['threads']})"
    return report


# Without a capped tmpfs, a file may hold this share of the scratch bound (RLIMIT_FSIZE).
_HOST_FILE_SHARE = 4


def _host_file_bound(scratch_bytes: int) -> str:
    """Scratch on the host's disk: each file at most a quarter of the bound (RLIMIT_FSIZE, which
    the kernel holds at every write; fallocate past a file's end is refused by seccomp), so what
    lands before the server sees a write (it watches each one) stays near the bound."""
    share = max(1, scratch_bytes // _HOST_FILE_SHARE)
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    limit = share if soft == resource.RLIM_INFINITY else min(soft, share)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return f"{limit} bytes per file (RLIMIT_FSIZE)"


def _enter_user_namespace() -> None:
    """A user namespace where this process keeps its uid and gid (RLIMIT_NPROC counts it alone),
    with a mount namespace it may change."""
    uid, gid = os.getuid(), os.getgid()
    call("unshare", ctypes.c_int(CLONE_NEWUSER | CLONE_NEWNS))
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _mount_scratch(
    scratch: dict[str, Any], namespace: bool, drop: tuple[int, int] | None, forked: bool = False
) -> None:
    """The scratch tmpfs with its two limits; the process's cwd moves onto it."""
    path = scratch["path"]
    options = f"size={int(scratch['bytes'])},nr_inodes={int(scratch['files'])}"
    if forked:
        # Made by the fork server, in a mount namespace of its own: a new tmpfs of this program's
        # own covers the mount point (in bwrap /tmp, shared by nothing now, and with it what the
        # server kept there: its channel's socket, its /proc; without bwrap the scratch root), and
        # the way down to the scratch dir is made in it: nothing of it on the host's disk.
        top = scratch["mountPoint"]
        mode = "0755" if drop else "0700"
        _mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, f"{options},mode={mode}")
        relative = os.path.relpath(path, top)
        for depth, _ in enumerate([] if relative == "." else relative.split("/")):
            part = os.path.join(top, *relative.split("/")[: depth + 1])
            os.mkdir(part, 0o755 if drop else 0o700)
        if relative != ".":
            os.chmod(path, 0o700)
    elif namespace:
        # bwrap's tmpfs (at /tmp, or at the scratch dir): the same file system with limits.
        top = scratch["mountPoint"]
        _mount(None, top, None, MS_REMOUNT | MS_NOSUID | MS_NODEV, options)
        if drop:
            # bwrap made the way to the scratch dir root's and 0700: the program's uid (which
            # confine.py makes the scratch dir's owner) must be able to traverse it.
            relative = os.path.relpath(path, top)
            parts = [] if relative == "." else relative.split("/")
            for depth in range(len(parts)):
                os.chmod(os.path.join(top, *parts[:depth]), 0o755)
    else:
        owner = f",uid={drop[0]},gid={drop[1]}" if drop else ""
        os.makedirs(path, mode=0o700, exist_ok=True)
        _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"{options},mode=0700{owner}")
    os.chdir(path)


def _reach_as(spec: dict[str, Any], uid: int, gid: int) -> str | None:
    """Makes every path the program needs reachable by uid/gid; returns what was covered."""
    landlock = spec.get("landlock") or {}
    listed = (landlock.get("readOnly") or []) + (landlock.get("devices") or [])
    needed = [p for p in listed if os.path.exists(p)]
    scratch_path = (spec.get("scratch") or {}).get("path")
    blocked = set()
    for path in needed + ([scratch_path] if scratch_path else []):
        top = _first_blocked(path, uid, gid)
        if top is not None:
            blocked.add(top)
    tops = sorted(b for b in blocked if not any(b != o and _under(b, o) for o in blocked))
    if not tops:
        return None
    binds = sorted({p for p in needed if any(_under(p, t) for t in tops)}, key=lambda p: p.count("/"))
    binds = [p for p in binds if not any(o != p and _under(p, o) and os.path.isdir(o) for o in binds)]
    # Opened before the cover hides them.
    handles = [(path, os.open(path, os.O_PATH | os.O_CLOEXEC)) for path in binds]
    try:
        for top in tops:
            _mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=0755")
        for path, fd in handles:
            os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(path, mode=0o755, exist_ok=True)
            else:
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
            _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
            _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        if scratch_path:
            os.makedirs(os.path.dirname(scratch_path), mode=0o755, exist_ok=True)
    finally:
        for _, fd in handles:
            os.close(fd)
    return f"bound for uid {uid} under {', '.join(tops)}"


def _first_blocked(path: str, uid: int, gid: int) -> str | None:
    """The outermost directory above `path` that uid/gid cannot traverse, or None."""
    os.setegid(gid)
    os.seteuid(uid)
    try:
        current = "/"
        for part in [p for p in os.path.dirname(path).split("/") if p]:
            current = os.path.join(current, part)
            if not os.access(current, os.X_OK, effective_ids=True):
                return current
        return None
    finally:
        os.seteuid(0)
        os.setegid(0)


def _tasks_of(uid: int) -> int:
    """Tasks (threads) of `uid` running now, as RLIMIT_NPROC counts them."""
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("Threads:"):
                        count += int(line.split()[1])
                        break
        except (OSError, ValueError):
            continue
    return count
