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
