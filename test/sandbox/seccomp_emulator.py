"""Runs confine.py's seccomp filter in a classic-BPF interpreter, for every architecture the table
knows (aarch64 included, which no test machine here runs), and checks the policy's decisions.

Usage: python3 seccomp_emulator.py /abs/path/to/confine.py   Prints one JSON line:
{"arches": [...], "checked": N, "failures": [...]}.
"""

import importlib
import json
import os
import struct
import sys

RET_KILL_PROCESS = 0x80000000
RET_ALLOW = 0x7FFF0000
EPERM = 0x00050000 | 1
ENOSYS = 0x00050000 | 38
SELF = 4242

# Calls the filter must leave alone (threads, asyncio, files, memory), by architecture.
ORDINARY = {
    "x86_64": {"read": 0, "write": 1, "openat": 257, "close": 3, "mmap": 9, "mprotect": 10, "munmap": 11,
               "futex": 202, "epoll_wait": 232, "epoll_ctl": 233, "epoll_create1": 291, "eventfd2": 290,
               "pipe2": 293, "getrandom": 318, "rseq": 334, "set_robust_list": 273, "clock_nanosleep": 230,
               "newfstatat": 262, "statx": 332, "getdents64": 217, "sendmsg": 46, "recvfrom": 45,
               "rt_sigaction": 13, "rt_sigprocmask": 14, "sched_getaffinity": 204, "madvise": 28,
               "exit_group": 231, "getpid": 39, "ftruncate": 77, "renameat2": 316, "unlinkat": 263,
               "mkdirat": 258, "symlinkat": 266, "linkat": 265, "sendfile": 40},
    "aarch64": {"read": 63, "write": 64, "openat": 56, "close": 57, "mmap": 222, "mprotect": 226,
                "munmap": 215, "futex": 98, "epoll_pwait": 22, "epoll_ctl": 21, "epoll_create1": 20,
                "eventfd2": 19, "pipe2": 59, "getrandom": 278, "rseq": 293, "set_robust_list": 99,
                "clock_nanosleep": 115, "newfstatat": 79, "statx": 291, "getdents64": 61, "sendmsg": 211,
                "recvfrom": 207, "rt_sigaction": 134, "rt_sigprocmask": 135, "sched_getaffinity": 123,
                "madvise": 233, "exit_group": 94, "getpid": 172, "ftruncate": 46, "renameat2": 276,
                "unlinkat": 35, "mkdirat": 34, "symlinkat": 36, "linkat": 37},
}


def run_filter(program, nr, arch_value, args=(0, 0, 0, 0, 0, 0)):
    """Executes the subset of classic BPF that seccomp filters use here."""
    data = struct.pack("<iIQ6Q", nr, arch_value, 0, *[a & 0xFFFFFFFFFFFFFFFF for a in args])
    insns = [struct.unpack_from("<HBBI", program, i) for i in range(0, len(program), 8)]
    acc = 0
    pc = 0
    steps = 0
    while True:
        steps += 1
        if steps > 10000 or pc >= len(insns):
            raise RuntimeError(f"filter ran off its end at {pc}")
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == 0x20:  # LD W ABS
            (acc,) = struct.unpack_from("<I", data, k)
        elif code == 0x06:  # RET K
            return k
        elif code == 0x15:  # JEQ K
            pc += jt if acc == k else jf
        elif code == 0x25:  # JGT K
            pc += jt if acc > k else jf
        elif code == 0x35:  # JGE K
            pc += jt if acc >= k else jf
        elif code == 0x45:  # JSET K
            pc += jt if acc & k else jf
        else:
            raise RuntimeError(f"unexpected BPF opcode {code:#x}")


def main():
    # confine.py as a member of its directory's package (its modules import each other relatively).
    directory, file = os.path.split(os.path.abspath(sys.argv[1]))
    sys.path.insert(0, os.path.dirname(directory))
    confine = importlib.import_module(f"{os.path.basename(directory)}.{os.path.splitext(file)[0]}")
    table = confine.syscalls
    failures = []
    checked = 0

    def expect(arch, what, got, want):
        nonlocal checked
        checked += 1
        if got != want:
            failures.append(f"{arch}: {what}: got {got:#x}, want {want:#x}")

    for arch in table.ARCHES:
        program = confine.build_seccomp_filter(arch, SELF)
        if len(program) // 8 > 4096:
            failures.append(f"{arch}: filter has {len(program) // 8} instructions, over BPF_MAXINSNS")
        audit = table.AUDIT_ARCH[arch]
        col = table.ARCHES.index(arch)

        def nr(name, col=col):
            return table.SYSCALLS[name][col]

        def decide(name, *args, program=program, audit=audit, nr=nr):
            return run_filter(program, nr(name), audit, args + (0,) * (6 - len(args)))

        for other, value in table.AUDIT_ARCH.items():
            if other != arch:
                convention = f"a call under {other}'s convention"
                expect(arch, convention, run_filter(program, 0, value), RET_KILL_PROCESS)
        expect(arch, "i386 convention", run_filter(program, 0, 0x40000003), RET_KILL_PROCESS)
        expect(arch, "a number above the table", run_filter(program, table.MAX_KNOWN + 1, audit), ENOSYS)
        expect(arch, "an x32 number", run_filter(program, 0x40000000 | 1, audit), ENOSYS)
        for name in confine.POLICY["deny"]:
            if nr(name) is not None:
                expect(arch, name, decide(name), EPERM)
        for name in confine.POLICY["nosys"]:
            expect(arch, name, decide(name), ENOSYS)
        for name, number in ORDINARY[arch].items():
            expect(arch, name, run_filter(program, number, audit), RET_ALLOW)

        thread = 0x00010000 | 0x00000100 | 0x00000800 | 0x00000400
        thread |= 0x00080000 | 0x00100000 | 0x00200000 | 0x01000000
        expect(arch, "clone of a thread", decide("clone", thread), RET_ALLOW)
        expect(arch, "clone of a process", decide("clone", 17), EPERM)
        expect(arch, "clone with CLONE_VM only", decide("clone", 0x100 | 17), EPERM)
        for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000):
            expect(arch, f"clone thread with namespace flag {flag:#x}", decide("clone", thread | flag), EPERM)
        expect(arch, "fallocate(mode 0)", decide("fallocate", 3, 0), RET_ALLOW)
        expect(arch, "fallocate(FALLOC_FL_KEEP_SIZE)", decide("fallocate", 3, 1), EPERM)
        expect(arch, "fallocate(PUNCH_HOLE|KEEP_SIZE)", decide("fallocate", 3, 3), EPERM)
        expect(arch, "socketpair(AF_UNIX)", decide("socketpair", 1, 1), RET_ALLOW)
        expect(arch, "socketpair(AF_INET)", decide("socketpair", 2, 1), EPERM)
        expect(arch, "socketpair(AF_UNIX) with high garbage", decide("socketpair", (7 << 32) | 1), RET_ALLOW)
        expect(arch, "ioctl TIOCSTI", decide("ioctl", 1, 0x5412), EPERM)
        expect(arch, "ioctl TIOCLINUX", decide("ioctl", 1, 0x541C), EPERM)
        expect(arch, "ioctl FIONREAD", decide("ioctl", 1, 0x541B), RET_ALLOW)
        expect(arch, "ioctl TCGETS", decide("ioctl", 1, 0x5401), RET_ALLOW)
        expect(arch, "prctl PR_SET_NAME", decide("prctl", 15), RET_ALLOW)
        expect(arch, "prctl PR_SET_PDEATHSIG", decide("prctl", 1), EPERM)
        expect(arch, "prctl PR_SET_DUMPABLE", decide("prctl", 4), EPERM)
        expect(arch, "prctl PR_SET_PTRACER", decide("prctl", 0x59616D61), EPERM)
        for name in (
            "kill",
            "prlimit64",
            "sched_setaffinity",
            "sched_setscheduler",
            "sched_setparam",
            "sched_setattr",
        ):
            expect(arch, f"{name}(self)", decide(name, SELF), RET_ALLOW)
            expect(arch, f"{name}(0)", decide(name, 0), RET_ALLOW)
            expect(arch, f"{name}(1)", decide(name, 1), EPERM)
            expect(arch, f"{name}(-1)", decide(name, -1), EPERM)
        expect(arch, "kill(-pgrp)", decide("kill", -SELF), EPERM)
        for name in ("tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
            expect(arch, f"{name}(self)", decide(name, SELF), RET_ALLOW)
            expect(arch, f"{name}(other)", decide(name, SELF + 1), EPERM)
            expect(arch, f"{name}(0)", decide(name, 0), EPERM)
        expect(arch, "setpriority(PRIO_PROCESS, 0)", decide("setpriority", 0, 0, 5), RET_ALLOW)
        expect(arch, "setpriority(PRIO_PROCESS, self)", decide("setpriority", 0, SELF, 5), RET_ALLOW)
        expect(arch, "setpriority(PRIO_PROCESS, 1)", decide("setpriority", 0, 1, 5), EPERM)
        expect(arch, "setpriority(PRIO_PGRP, 0)", decide("setpriority", 1, 0, 5), EPERM)
        expect(arch, "setpriority(PRIO_USER, 0)", decide("setpriority", 2, 0, 5), EPERM)

    print(json.dumps({"arches": list(table.ARCHES), "checked": checked, "failures": failures}))


if __name__ == "__main__":
    main()
