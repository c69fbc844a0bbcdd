"""Confines the interpreter it runs in: the linux backend's layer 2 (SPEC §7).

The child's bootstrap (src/execution/runner/runner.py) imports this file by absolute path, as a
member of the package its directory makes (runner.py's load_module: the modules here import each
other relatively, and the directory never goes on sys.path), and calls `apply(spec)` after its
rlimits and before it reads the program. Standard library only (ctypes for the raw calls). One
concern a module, next to this file: privileges.py (rlimits, credentials, capabilities),
namespaces.py, landlock.py, seccomp.py (the policy), kernel.py (the raw calls and the kernel's
numbers the standard library lacks), syscalls.py (the syscall numbers); apply() puts them together.
Everything is applied to this process, in this order:

  1. every rlimit: soft = hard (the program can never raise one again; the CPU limit keeps the
     hard one the runner set above it, cpu_hard_seconds, for SIGXCPU to come first);
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
  7. a seccomp filter (seccomp.POLICY), on every thread.

The spec (built by src/sandbox/linux/index.ts):
  {"module": "/abs/confine.py", "tier": "linux:...", "namespace": bool,
   "dropRoot": {"uid": int, "gid": int} | null, "threads": int,
   "scratch": {"path": str, "mountPoint": str, "bytes": int, "files": int},
   "landlock": {"required": bool, "readOnly": [paths], "readWrite": [paths], "devices": [paths]},
   "seccomp": {"required": true}}
A path that does not exist is skipped. Anything that cannot be applied raises ConfineError, and
the runner then refuses to run the program.

A process that confines its children one by one (each with its own pid, uid and scratch dir)
loads this file once and calls the layers through its attributes in the same order:
privileges.freeze_rlimits(), namespaces.apply(), landlock.prepare_ruleset(),
privileges.drop_privileges(), privileges.forbid_new_privileges(), landlock.restrict_self() (or
landlock.apply_landlock() with nothing in between), seccomp.install_seccomp(build_seccomp_filter()).
"""

from __future__ import annotations

import os
import struct
from typing import Any

from . import kernel, landlock, namespaces, privileges, seccomp, syscalls

__all__ = [
    "POLICY",
    "ConfineError",
    "apply",
    "build_seccomp_filter",
    "compiled_filter",
    "kernel",
    "landlock",
    "landlock_abi",
    "namespaces",
    "privileges",
    "seccomp",
    "syscalls",
]

ConfineError = kernel.ConfineError
POLICY = seccomp.POLICY
build_seccomp_filter = seccomp.build_seccomp_filter
landlock_abi = landlock.landlock_abi
_prctl = kernel.prctl
_PR_GET_SECCOMP = kernel.PR_GET_SECCOMP


# Per architecture: the filter built for one pid, and where that pid sits in it.
_templates: dict[str, tuple[bytes, tuple[int, ...]]] = {}
_PID_SLOT = struct.Struct("<I")


def compiled_filter(arch: str, self_pid: int) -> bytes:
    """build_seccomp_filter(arch, self_pid), built once per architecture: a fork server's children
    (each its own pid) get the same filter with their pid written where the rules compare with it
    (the offsets where two builds for different pids differ)."""
    if arch not in _templates:
        first, second = build_seccomp_filter(arch, 1), build_seccomp_filter(arch, 2)
        if len(first) != len(second):
            raise ConfineError("seccomp: the filter's shape depends on the pid")
        # Each instruction is 8 bytes; its 32-bit operand k is the last four.
        slots = tuple(
            at + 4 for at in range(0, len(first), 8) if first[at + 4 : at + 8] != second[at + 4 : at + 8]
        )
        _templates[arch] = (first, slots)
    template, slots = _templates[arch]
    program = bytearray(template)
    for slot in slots:
        _PID_SLOT.pack_into(program, slot, self_pid & 0xFFFFFFFF)
    return bytes(program)


def _single_threaded() -> bool:
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        import threading

        return threading.active_count() == 1


def apply(spec: dict[str, Any]) -> dict[str, Any]:
    """Applies `spec` to this process for good. Returns a JSON-serialisable report."""
    if not isinstance(spec, dict):
        raise ConfineError("confine spec must be an object")
    if os.uname().sysname != "Linux":
        raise ConfineError("the linux sandbox runs on Linux only")
    arch = kernel.machine()
    if arch not in syscalls.ARCHES:
        raise ConfineError(
            f"no seccomp syscall table for {arch}: supported are {', '.join(syscalls.ARCHES)};"
            " set execution.sandbox: none to run programs without isolation"
        )
    if not _single_threaded():
        raise ConfineError("confinement must happen before any thread starts (Landlock is per thread)")
    try:
        _prctl(_PR_GET_SECCOMP)
    except OSError as exc:
        raise ConfineError(
            "seccomp is not available in this kernel (CONFIG_SECCOMP); the linux sandbox needs it"
        ) from exc

    privileges.freeze_rlimits()
    try:
        bounds = namespaces.apply(spec, privileges.drop_target(spec))
    except OSError as exc:
        raise ConfineError(f"cannot set up the program's bounds: {exc}") from exc

    rules = spec.get("landlock") or {}
    abi = landlock_abi()
    if abi < 1 and rules.get("required", True):
        raise ConfineError(
            "Landlock is not available: it needs Linux >= 5.13 built with CONFIG_SECURITY_LANDLOCK"
            " and 'landlock' in the active LSM list (lsm= boot parameter); without it the linux"
            " sandbox needs bwrap (install bubblewrap)"
        )
    ruleset = landlock.prepare_ruleset(rules, abi) if abi >= 1 else None
    program = compiled_filter(arch, os.getpid())

    identity = privileges.drop_privileges(spec)
    if os.getuid() == 0 and bounds.get("threads"):
        bounds["threads"] = f"none: the program kept uid 0, which RLIMIT_NPROC exempts ({identity})"

    parent = os.getppid()
    privileges.forbid_new_privileges()
    privileges.die_with_parent(parent)
    if ruleset is not None:
        landlock.restrict_self(ruleset)
    seccomp.install_seccomp(program)

    if _prctl(kernel.PR_GET_NO_NEW_PRIVS) != 1 or _prctl(_PR_GET_SECCOMP) != 2:
        raise ConfineError("no_new_privs or the seccomp filter did not take effect")
    tier = spec.get("tier")
    missing = bounds.pop("namespaces", None)
    return {
        "tier": f"{tier} ({missing})" if missing and isinstance(tier, str) else tier,
        "landlockAbi": abi,
        "seccomp": True,
        "identity": identity,
        "namespace": bool(spec.get("namespace")),
        "bounds": bounds,
    }
