"""The seccomp filter's pid rules for programs that share a PID namespace (a fork server's children,
zygote.py): each may name only its own pid in calls that take one, and confine.compiled_filter
writes each child's pid into one build per architecture instead of building the filter again."""

import unittest

import _paths  # noqa: F401  (sys.path for `linux` and the emulator)
from linux import confine, seccomp, syscalls
from seccomp_emulator import run_filter

EPERM = 0x00050000 | 1
ALLOW = seccomp._RET_ALLOW
SELF, OTHER = 4242, 4243
PRIO_PROCESS, PRIO_PGRP = 0, 1

# A call that names a pid in its first argument: another program's pid is refused.
FIRST_ARGUMENT = (
    "getsid",
    "getpgid",
    "sched_getaffinity",
    "sched_getscheduler",
    "sched_getparam",
    "sched_getattr",
    "sched_rr_get_interval",
)


def decide(program, arch, name, args):
    nr = syscalls.SYSCALLS[name][syscalls.ARCHES.index(arch)]
    return run_filter(program, nr, syscalls.AUDIT_ARCH[arch], (*args, 0, 0, 0, 0, 0, 0)[:6])


class PidRulesTest(unittest.TestCase):
    def test_calls_that_take_a_pid_name_this_process_or_none(self):
        for arch in syscalls.ARCHES:
            program = seccomp.build_seccomp_filter(arch, SELF)
            for name in FIRST_ARGUMENT:
                self.assertEqual(decide(program, arch, name, (OTHER,)), EPERM, f"{arch} {name}")
                self.assertEqual(decide(program, arch, name, (1,)), EPERM, f"{arch} {name}")
                self.assertEqual(decide(program, arch, name, (SELF,)), ALLOW, f"{arch} {name}")
                self.assertEqual(decide(program, arch, name, (0,)), ALLOW, f"{arch} {name}")
            self.assertEqual(decide(program, arch, "getpriority", (PRIO_PROCESS, OTHER)), EPERM, arch)
            self.assertEqual(decide(program, arch, "getpriority", (PRIO_PGRP, 0)), EPERM, arch)
            self.assertEqual(decide(program, arch, "getpriority", (PRIO_PROCESS, 0)), ALLOW, arch)
            self.assertEqual(decide(program, arch, "ioprio_get", (1, 0)), EPERM, arch)


class SignalOwnerTest(unittest.TestCase):
    """A descriptor's owner gets its readiness signal, checked by uid alone: no program may name one."""

    def test_no_descriptor_names_a_process_to_signal(self):
        F_GETFL, F_SETFL, F_SETOWN, F_SETSIG, F_SETOWN_EX, F_GETOWN = 3, 4, 8, 10, 15, 9
        FIONBIO, FIOSETOWN, SIOCSPGRP = 0x5421, 0x8901, 0x8902
        for arch in syscalls.ARCHES:
            program = seccomp.build_seccomp_filter(arch, SELF)
            for command in (F_SETOWN, F_SETSIG, F_SETOWN_EX):
                refused = decide(program, arch, "fcntl", (3, command, OTHER))
                self.assertEqual(refused, EPERM, f"{arch} {command}")
            for command in (F_GETFL, F_SETFL, F_GETOWN):
                self.assertEqual(decide(program, arch, "fcntl", (3, command, 0)), ALLOW, f"{arch} {command}")
            for request in (FIOSETOWN, SIOCSPGRP):
                self.assertEqual(decide(program, arch, "ioctl", (3, request, 0)), EPERM, f"{arch} {request}")
            self.assertEqual(decide(program, arch, "ioctl", (3, FIONBIO, 0)), ALLOW, arch)


class CpuClockTest(unittest.TestCase):
    """A CPU clock's id encodes a pid (~pid << 3 | kind): only this process's and thread's own."""

    def test_clocks_of_other_processes_are_refused(self):
        def cpu_clock(pid, kind):
            return ((~pid << 3) | kind) & 0xFFFFFFFF

        CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID = 1, 2, 3
        for arch in syscalls.ARCHES:
            program = seccomp.build_seccomp_filter(arch, SELF)
            for name in ("clock_gettime", "clock_getres", "clock_nanosleep", "timer_create"):
                for clock in (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID):
                    allowed = decide(program, arch, name, (clock,))
                    self.assertEqual(allowed, ALLOW, f"{arch} {name} {clock}")
                for kind in (0, 1, 2, 6):  # this process's, this thread's (pid 0)
                    allowed = decide(program, arch, name, (cpu_clock(0, kind),))
                    self.assertEqual(allowed, ALLOW, f"{arch} {name} {kind}")
                for pid in (1, OTHER):
                    refused = decide(program, arch, name, (cpu_clock(pid, 2),))
                    self.assertEqual(refused, EPERM, f"{arch} {name} {pid}")


class CompiledFilterTest(unittest.TestCase):
    def test_is_the_filter_built_for_that_pid(self):
        for arch in syscalls.ARCHES:
            for pid in (1, 2, 3, 255, 256, 65_536, 4_194_303):
                built = seccomp.build_seccomp_filter(arch, pid)
                self.assertEqual(confine.compiled_filter(arch, pid), built, f"{arch} {pid}")

    def test_each_pid_gets_its_own_rules(self):
        for arch in syscalls.ARCHES:
            mine, other = confine.compiled_filter(arch, SELF), confine.compiled_filter(arch, OTHER)
            self.assertEqual(decide(mine, arch, "kill", (SELF, 9)), ALLOW, arch)
            self.assertEqual(decide(mine, arch, "kill", (OTHER, 9)), EPERM, arch)
            self.assertEqual(decide(other, arch, "kill", (OTHER, 9)), ALLOW, arch)
            self.assertEqual(decide(other, arch, "kill", (SELF, 9)), EPERM, arch)


if __name__ == "__main__":
    unittest.main()
