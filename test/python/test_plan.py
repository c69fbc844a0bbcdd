"""The calls a program's text shows, for the one question asked before it runs (SPEC §12):
src/execution/runner/call_plan.py's plan()."""

import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner.call_plan import plan

SPEC = {"tools": {"mcp__fs__write": {}, "mcp__fs__read": {}}}


def times(source):
    return {entry["tool"]: entry["times"] for entry in plan(source, SPEC)}


class PlanTest(unittest.TestCase):
    def test_a_loop_over_a_literal_range_multiplies(self):
        source = "for i in range(24):\n    await mcp__fs__write(path=f'out/{i}', text='x')\n"
        self.assertEqual(times(source), {"mcp__fs__write": 24})
        self.assertEqual(plan(source, SPEC)[0]["samples"], ["mcp__fs__write(path=f'out/{i}', text='x')"])

    def test_nested_ranges_and_separate_calls_add_up(self):
        source = (
            "await mcp__fs__write(path='a')\n"
            "for i in range(3):\n    for j in range(2, 4):\n        await mcp__fs__write(path='b')\n"
        )
        self.assertEqual(times(source), {"mcp__fs__write": 7})

    def test_a_comprehension_over_a_range_counts_its_items(self):
        source = "await asyncio.gather(*[mcp__fs__write(path=str(i)) for i in range(5)])\n"
        self.assertEqual(times(source), {"mcp__fs__write": 5})

    def test_any_other_loop_a_function_or_a_while_is_many(self):
        for source in (
            "for name in names:\n    await mcp__fs__write(path=name)\n",
            "async def save(p):\n    await mcp__fs__write(path=p)\n",
            "while True:\n    await mcp__fs__read(path='x')\n",
            "await asyncio.gather(*[mcp__fs__write(path=p) for p in paths if p])\n",
        ):
            self.assertIn("many", times(source).values(), source)

    def test_the_loop_iterable_and_else_run_once(self):
        source = "for x in range(4):\n    pass\nelse:\n    await mcp__fs__write(path='done')\n"
        self.assertEqual(times(source), {"mcp__fs__write": 1})

    def test_calls_it_cannot_see_are_left_to_run_time(self):
        self.assertEqual(times("w = mcp__fs__write\nawait w(path='a')\n"), {})
        self.assertEqual(times("await mcp__fs__other(path='a')\n"), {})
        self.assertEqual(times("def mcp__fs__write(**k): pass\nmcp__fs__write(path='a')\n"), {})
        self.assertEqual(plan("this is not python(", SPEC), [])
        self.assertEqual(plan("await mcp__fs__write(path='a')", {}), [])

    def test_samples_are_few_and_short(self):
        source = "".join(f"await mcp__fs__write(path='{n}')\n" for n in range(10))
        source += "await mcp__fs__read(path='" + "x" * 300 + "')\n"
        entries = {entry["tool"]: entry for entry in plan(source, SPEC)}
        self.assertEqual(len(entries["mcp__fs__write"]["samples"]), 3)
        self.assertEqual(entries["mcp__fs__read"]["samples"], [])


if __name__ == "__main__":
    unittest.main()
