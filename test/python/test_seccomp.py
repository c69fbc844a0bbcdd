"""The seccomp filter's assembler on its own (src/sandbox/linux/seccomp.py): its encoding, its
jumps, and the decisions of what it builds, run in the classic-BPF interpreter of
test/sandbox/seccomp_emulator.py. The emulator's own run (seccomp-policy.test.ts) checks the whole
policy table; these pin the assembler the table relies on."""

import struct
import unittest

import _paths  # noqa: F401  (sys.path for `linux` and the emulator)
from linux import seccomp, syscalls
from linux.kernel import CLONE_NEWUSER, ConfineError
from seccomp_emulator import run_filter

EPERM = 0x00050000 | 1
ENOSYS = 0x00050000 | 38
ALLOW = seccomp._RET_ALLOW
KILL = seccomp._RET_KILL_PROCESS
SELF = 4242


def instructions(program):
    return [struct.unpack_from("<HBBI", program, at) for at in range(0, len(program), 8)]


class AssemblerTest(unittest.TestCase):
    def test_encodes_struct_sock_filter_little_endian(self):
        asm = seccomp._Assembler()
        asm.load(4)
        asm.ret(0xFFFFFFFF + 2)  # k is a u32: masked, not an error
        program = asm.build()
        self.assertEqual(len(program), 16)
        self.assertEqual(program[:8], struct.pack("<HBBI", seccomp._LD_W_ABS, 0, 0, 4))
        self.assertEqual(instructions(program)[1], (seccomp._RET, 0, 0, 1))

    def test_resolves_labels_to_offsets_from_the_next_instruction(self):
        asm = seccomp._Assembler()
        asm.jump(seccomp._JEQ, 7, "yes", 0)
        asm.ret(1)
        asm.ret(2)
        asm.label("yes")
        asm.ret(3)
        self.assertEqual(instructions(asm.build())[0], (seccomp._JEQ, 2, 0, 7))

    def test_refuses_a_jump_beyond_255_instructions(self):
        asm = seccomp._Assembler()
        asm.jump(seccomp._JEQ, 0, "far", 0)
        for _ in range(256):
            asm.ret(0)
        asm.label("far")
        asm.ret(0)
        with self.assertRaisesRegex(ConfineError, "jump out of range at instruction 0"):
            asm.build()

    def test_refuses_a_backward_jump(self):
        asm = seccomp._Assembler()
        asm.label("back")
        asm.ret(0)
        asm.jump(seccomp._JEQ, 0, "back", 0)
        with self.assertRaises(ConfineError):
            asm.build()


class FilterTest(unittest.TestCase):
    def setUp(self):
        self.programs = {arch: seccomp.build_seccomp_filter(arch, SELF) for arch in syscalls.ARCHES}

    def decide(self, arch, name, args=(0, 0, 0, 0, 0, 0)):
        nr = syscalls.SYSCALLS[name][syscalls.ARCHES.index(arch)]
        return run_filter(self.programs[arch], nr, syscalls.AUDIT_ARCH[arch], args)

    def test_refuses_an_architecture_without_a_table(self):
        with self.assertRaisesRegex(ConfineError, "riscv64"):
            seccomp.build_seccomp_filter("riscv64", SELF)

    def test_every_jump_lands_inside_the_program_and_it_ends_allowing(self):
        for arch, program in self.programs.items():
            code = instructions(program)
            for at, (op, jt, jf, _k) in enumerate(code):
                if op != seccomp._RET:
                    self.assertLess(at + 1 + max(jt, jf), len(code), f"{arch} instruction {at}")
            self.assertEqual(code[-1], (seccomp._RET, 0, 0, ALLOW), arch)

    def test_kills_a_call_made_under_another_architecture(self):
        program = self.programs["x86_64"]
        self.assertEqual(run_filter(program, 0, syscalls.AUDIT_ARCH["aarch64"]), KILL)
        self.assertEqual(run_filter(program, 0, 0x40000003), KILL)  # i386

    def test_refuses_numbers_past_the_table_with_enosys(self):
        for arch, program in self.programs.items():
            self.assertEqual(run_filter(program, syscalls.MAX_KNOWN + 1, syscalls.AUDIT_ARCH[arch]), ENOSYS)
            # -1 (what a hand-made syscall(-1) sends) reads as 0xFFFFFFFF: compared unsigned, past the table.
            self.assertEqual(run_filter(program, -1, syscalls.AUDIT_ARCH[arch]), ENOSYS)

    def test_decides_by_the_policy_table(self):
        for arch in syscalls.ARCHES:
            self.assertEqual(self.decide(arch, "execve"), EPERM, arch)
            self.assertEqual(self.decide(arch, "socket"), EPERM, arch)
            self.assertEqual(self.decide(arch, "clone3"), ENOSYS, arch)
            self.assertEqual(self.decide(arch, "capget"), ALLOW, arch)

    def test_clone_makes_threads_only(self):
        thread = 0x00010000
        for arch in syscalls.ARCHES:
            self.assertEqual(self.decide(arch, "clone", (thread, 0, 0, 0, 0, 0)), ALLOW, arch)
            self.assertEqual(self.decide(arch, "clone", (0, 0, 0, 0, 0, 0)), EPERM, arch)
            self.assertEqual(self.decide(arch, "clone", (thread | CLONE_NEWUSER, 0, 0, 0, 0, 0)), EPERM, arch)

    def test_signals_reach_this_process_only(self):
        for arch in syscalls.ARCHES:
            self.assertEqual(self.decide(arch, "kill", (SELF, 9, 0, 0, 0, 0)), ALLOW, arch)
            self.assertEqual(self.decide(arch, "kill", (0, 9, 0, 0, 0, 0)), ALLOW, arch)
            self.assertEqual(self.decide(arch, "kill", (1, 9, 0, 0, 0, 0)), EPERM, arch)
            self.assertEqual(self.decide(arch, "tgkill", (0, 0, 9, 0, 0, 0)), EPERM, arch)
            # Only the low 32 bits of a pid are compared: a pid_t is 32 bits wide.
            self.assertEqual(self.decide(arch, "kill", ((1 << 32) | SELF, 9, 0, 0, 0, 0)), ALLOW, arch)

    def test_a_policy_rule_of_unknown_kind_is_refused(self):
        original = seccomp.POLICY["args"]
        seccomp.POLICY["args"] = {**original, "kill": ("nobody_knows",)}
        try:
            with self.assertRaisesRegex(ConfineError, "unknown rule 'nobody_knows' for kill"):
                seccomp.build_seccomp_filter("x86_64", SELF)
        finally:
            seccomp.POLICY["args"] = original


if __name__ == "__main__":
    unittest.main()
