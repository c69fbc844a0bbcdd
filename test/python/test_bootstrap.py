"""The bootstrap's pure parts: what runner.py decides without touching the process (the limits an
error's hint may name, the confine spec it accepts) and how program_habits.py makes habitual async
Python work or explains it (SPEC §6, §7)."""

import ast
import asyncio
import resource
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner import program_habits
from runner.runner import apply_confine, hinted_limits

FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
MIB = 1024 * 1024


def run_program(source, program_globals=None):
    """Compiles the program as the runner does and runs it inside a running event loop, as the runner
    does (where asyncio.run itself would fail); returns its globals."""
    if program_globals is None:
        program_globals = {"__name__": "__main__", "asyncio": asyncio}
    code = program_habits.compile_program(source, FLAGS)

    async def in_the_runners_loop():
        result = eval(code, program_globals)
        if asyncio.iscoroutine(result):
            await result

    asyncio.run(in_the_runners_loop())
    return program_globals


class HintedLimitsTest(unittest.TestCase):
    def setUp(self):
        # The hint names the file size limit the kernel holds (confinement may have lowered it).
        saved = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * MIB, saved[1]))
        self.addCleanup(resource.setrlimit, resource.RLIMIT_FSIZE, saved)
        scratch = {"bytes": 256 * MIB, "files": 65536}
        self.start = {"limits": {"file_size_bytes": 128 * MIB}, "confine": {"scratch": scratch}}

    def test_the_scratch_cap_is_named_only_when_the_sandbox_made_scratch_a_capped_tmpfs(self):
        capped = hinted_limits(self.start, {"tier": "bwrap", "bounds": {"scratch": "tmpfs size=256m"}})
        self.assertEqual(
            capped,
            {"file_bytes": 64 * MIB, "scratch": {"bytes": 256 * MIB, "files": 65536}, "confined": True},
        )
        on_disk = hinted_limits(self.start, {"tier": "landlock", "bounds": {"scratch": "rlimit"}})
        self.assertEqual(on_disk, {"file_bytes": 64 * MIB, "scratch": None, "confined": True})

    def test_a_report_of_any_other_shape_names_no_scratch_cap(self):
        for report in (None, "tmpfs", ["tmpfs"], {"bounds": "tmpfs"}, {"bounds": {"scratch": 1}}):
            with self.subTest(report=report):
                self.assertIsNone(hinted_limits(self.start, report)["scratch"])

    def test_a_start_without_confine_names_no_scratch_cap_and_no_confinement(self):
        expected = {"file_bytes": 64 * MIB, "scratch": None, "confined": False}
        self.assertEqual(hinted_limits({}, None), expected)


class ConfineSpecTest(unittest.TestCase):
    def test_the_confine_module_must_be_an_absolute_path(self):
        for spec in ({}, {"module": "confine.py"}, {"module": "./linux/confine.py"}, {"module": 3}):
            with self.subTest(spec=spec), self.assertRaisesRegex(ValueError, 'absolute "module" path'):
                apply_confine(spec)


class EventLoopHabitsTest(unittest.TestCase):
    def test_asyncio_run_of_main_at_top_level_becomes_await(self):
        program = run_program("async def main():\n    return 7\nresult = asyncio.run(main())\n")
        self.assertEqual(program["result"], 7)

    def test_under_if_name_main_and_with_an_alias(self):
        source = (
            "import asyncio as aio\n"
            "from asyncio import run as go\n"
            "async def main():\n    return 1\n"
            "if __name__ == '__main__':\n"
            "    a = aio.run(main())\n"
            "    b = go(main())\n"
        )
        program = run_program(source)
        self.assertEqual((program["a"], program["b"]), (1, 1))

    def test_run_until_complete_on_any_loop_becomes_await(self):
        source = (
            "async def main():\n    return 'x'\n"
            "r = asyncio.get_event_loop().run_until_complete(main())\n"
        )
        self.assertEqual(run_program(source)["r"], "x")

    def test_inside_a_function_nothing_is_rewritten(self):
        tree = ast.parse("def f():\n    return asyncio.run(g())\n")
        rewriter = program_habits._LoopCallsToAwait({"asyncio"}, set())
        rewriter.visit(tree)
        self.assertFalse(rewriter.changed)

    def test_line_numbers_stay_the_programs(self):
        source = "async def main():\n    return 1\n\n\nasyncio.run(main())\nraise ValueError('here')\n"
        self.assertEqual(program_habits.compile_program(source, FLAGS).co_filename, "<program>")
        try:
            run_program(source)
        except ValueError as exc:
            tb = exc.__traceback__
        else:
            self.fail("the program did not raise")
        while tb.tb_next is not None:
            tb = tb.tb_next
        self.assertEqual(tb.tb_lineno, 6)


class NeverAwaitedTest(unittest.TestCase):
    def test_unstarted_calls_are_listed_by_line_at_most_three(self):
        never = program_habits.NeverAwaited()

        async def call():
            return None

        made = []
        for name, line in (("mcp__a__d", 9), ("mcp__a__b", 2), ("mcp__a__c", 5), ("mcp__a__e", 12)):
            coroutine = call()
            made.append(coroutine)
            never.created(name, line, coroutine)
        started = never.created("mcp__a__ran", 1, None)
        never.started(started)
        text = program_habits.not_awaited_error(never)
        never.close_all()
        head = "RuntimeError: a coroutine was never awaited, so it never ran (add await):"
        self.assertTrue(text.startswith(head))
        self.assertEqual(
            text.splitlines()[1:],
            [
                "  line 2: mcp__a__b(...) was never awaited: write `await mcp__a__b(...)`",
                "  line 5: mcp__a__c(...) was never awaited: write `await mcp__a__c(...)`",
                "  line 9: mcp__a__d(...) was never awaited: write `await mcp__a__d(...)`",
                "  ... and 1 more",
            ],
        )
        self.assertEqual(never.pending, {})
        self.assertTrue(all(coroutine.cr_frame is None for coroutine in made))

    def test_nothing_to_say_when_every_coroutine_ran(self):
        self.assertIsNone(program_habits.not_awaited_error(program_habits.NeverAwaited()))


class HintsTest(unittest.TestCase):
    def hint(self, exc):
        return program_habits.hint_for_error(exc, program_habits.NeverAwaited())

    def test_a_module_outside_the_standard_library_points_at_tools(self):
        hint = self.hint(ModuleNotFoundError("No module named 'requests'", name="requests"))
        self.assertIn("programs have the Python standard library only ('requests' is not part of it)", hint)
        self.assertIsNone(self.hint(ModuleNotFoundError("No module named 'json.x'", name="json.x")))

    def test_asyncio_run_inside_the_running_loop_says_to_await(self):
        hint = self.hint(RuntimeError("asyncio.run() cannot be called from a running event loop"))
        self.assertIn("the program already runs in an event loop: call async code with `await`", hint)

    def test_a_coroutine_used_as_a_value_says_add_await(self):
        async def call():
            return {}

        coroutine = call()
        try:
            coroutine["rows"]
        except TypeError as exc:
            hint = self.hint(exc)
        finally:
            coroutine.close()
        self.assertEqual(hint, "hint: a coroutine was used as a value; add await where it is made")

    def test_a_dict_used_as_text_names_the_key_holding_the_text(self):
        try:
            {"content": "a\nb", "n": 2}.splitlines()
        except AttributeError as exc:
            hint = self.hint(exc)
        self.assertEqual(
            hint,
            "hint: this value is a dict, not a str: its text is under 'content':"
            " value['content'].splitlines(...)",
        )

    def test_other_errors_get_no_hint(self):
        self.assertIsNone(self.hint(ValueError("bad")))
        self.assertIsNone(self.hint(None))


if __name__ == "__main__":
    unittest.main()
