"""The preflight check's shortcut (src/execution/runner/preflight.py, SPEC §6.1): given the names
the compiled program looks up, a program that looks up unshadowed builtins alone is not parsed
again; the shortcut never hides a problem the full check finds."""

import ast
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner import preflight
from test_preflight import TOOLS, UNKNOWN, program_globals


def looked_up(source):
    """Every name the compiled program looks up by name, nested code included (as the runner
    collects them)."""
    code = compile(source, "<program>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    names, stack = set(), [code]
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if type(c) is type(code))
    return names


SPEC = {"tools": TOOLS, "unknown": UNKNOWN}

PROGRAMS = [
    "print(1)",
    "print(len(str(1)), sorted([3, 1]))",
    "prnt(1)",
    "def f():\n    return lenn([])\nprint(f())",
    "class A:\n    x = undefined_thing()\n",
    "print([fetch(i) for i in range(3)])",
    "emit(1, 2)",
    "load('k')",
    "await mcp__fin__qurey(ticker='A')",
    "await mcp__fin__query(1)",
    "x = mcp__fin__query(ticker='A')\nprint(x)",
    "print = lambda *a: None\nprint(1)",
    "async def main():\n    await asyncio.sleep(0)\n",
    "lambda: nope()",
]


class ShortcutTest(unittest.TestCase):
    def test_it_finds_what_the_full_check_finds(self):
        for source in PROGRAMS:
            with self.subTest(source=source):
                full = preflight.check(source, program_globals(), SPEC)
                short = preflight.check(source, program_globals(), SPEC, looked_up(source))
                self.assertEqual(short, full)

    def test_it_parses_nothing_for_a_program_of_builtins(self):
        saved = ast.parse
        parsed = []
        ast.parse = lambda *args, **kwargs: parsed.append(args) or saved(*args, **kwargs)
        try:
            self.assertIsNone(preflight.check("print(1)", program_globals(), SPEC, looked_up("print(1)")))
            self.assertEqual(parsed, [])
            self.assertIsNotNone(preflight.check("prnt(1)", program_globals(), SPEC, looked_up("prnt(1)")))
            self.assertEqual(len(parsed), 1)
        finally:
            ast.parse = saved

    def test_a_builtin_shadowed_by_a_global_or_a_tool_is_checked(self):
        globals_ = {**program_globals(), "len": lambda x: 0}
        self.assertFalse(preflight._only_builtins({"len"}, globals_, SPEC))
        self.assertFalse(preflight._only_builtins({"print"}, program_globals(), {"tools": {"print": {}}}))
        self.assertTrue(preflight._only_builtins({"print", "len"}, program_globals(), SPEC))


if __name__ == "__main__":
    unittest.main()
