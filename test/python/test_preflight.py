"""The preflight check (src/execution/runner/preflight.py, SPEC §6.1): what a program is told before
it runs, from its AST, the tools the parent described and the helpers' own signatures."""

import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner import preflight
from runner.arguments import match_names

QUERY_SIGNATURE = (
    "await mcp__fin__query(*, ticker: str, limit: int | None = None, period: str | None = None) -> dict"
)
TOOLS = {
    "mcp__fin__query": {
        "signature": QUERY_SIGNATURE,
        "params": {
            "ticker": {"types": ["string"]},
            "limit": {"types": ["integer"]},
            "period": {"types": ["string"], "enum": ["annual", "quarterly"]},
            "ratio": {"types": ["number"]},
        },
        "required": ["ticker"],
        "open": False,
    },
    "mcp__calc__get_sum": {
        "signature": "await mcp__calc__get_sum(*, a: int, b: int) -> int",
        "params": {"a": {"types": ["integer"]}, "b": {"types": ["integer"]}},
        "required": ["a", "b"],
        "open": False,
    },
    "mcp__clock__now": {
        "signature": "await mcp__clock__now() -> str",
        "params": {},
        "required": [],
        "open": False,
    },
    "mcp__any__echo": {
        "signature": "await mcp__any__echo(**kw) -> dict",
        "params": {},
        "required": [],
        "open": True,
    },
}
UNKNOWN = {
    "mcp__fin__qurey": ["unknown tool 'mcp__fin__qurey'; did you mean mcp__fin__query?", QUERY_SIGNATURE],
}


async def load(key, default=None):
    return default


async def store(key, value):
    return None


def emit(value):
    return None


def program_globals():
    """What the runner gives a program: its helpers and a callable per tool name."""
    names = {name: (lambda **_kwargs: None) for name in [*TOOLS, *UNKNOWN]}
    return {"__name__": "__main__", "load": load, "store": store, "emit": emit, **names}


def check(source):
    return preflight.check(source, program_globals(), {"tools": TOOLS, "unknown": UNKNOWN})


class CleanProgramsTest(unittest.TestCase):
    def test_a_correct_program_passes(self):
        source = (
            "r = await mcp__fin__query(ticker='ACME', limit=4, period='annual', ratio=1)\n"
            "total = await mcp__calc__get_sum(a=1, b=2)\n"
            "await store('r', r)\n"
            "emit(await load('r', default={}))\n"
            "print(await mcp__clock__now(), await mcp__any__echo(anything=[1, 2]))\n"
        )
        self.assertIsNone(check(source))

    def test_what_cannot_be_seen_statically_is_left_to_the_run(self):
        source = (
            "args = {'ticker': 'ACME'}\n"
            "await mcp__fin__query(**args)\n"  # **kwargs: the required ticker may be in there
            "n = len('abc')\n"
            "await mcp__fin__query(ticker='ACME', limit=n)\n"  # a value computed at run time
            "await mcp__fin__query(ticker='ACME', limit=None)\n"  # an optional None is left out
        )
        self.assertIsNone(check(source))

    def test_a_program_that_does_not_parse_is_left_to_the_compiler(self):
        self.assertIsNone(check("await mcp__fin__query(ticker='A'\n"))


class UnknownNamesTest(unittest.TestCase):
    def test_an_unknown_tool_is_named_with_its_line_and_the_closest_signature(self):
        report = check("x = 1\nr = await mcp__fin__qurey(ticker='ACME')\n")
        self.assertIn("PreflightError: 1 problem found before the program ran", report)
        self.assertIn("  line 2: unknown tool 'mcp__fin__qurey'; did you mean mcp__fin__query?", report)
        self.assertIn(f"    {QUERY_SIGNATURE}", report)

    def test_an_unknown_helper_gets_the_closest_helper_suggested(self):
        report = check("v = await lod('k')\n")
        self.assertIn("line 1: name 'lod' is not defined; did you mean load?", report)

    def test_a_tool_written_without_its_prefix_gets_the_full_name_suggested(self):
        report = check("await query(ticker='ACME')\n")
        self.assertIn("name 'query' is not defined; did you mean mcp__fin__query?", report)

    def test_a_name_the_program_binds_itself_is_not_unknown(self):
        source = (
            "def mcp__fin__qurey(**kw):\n    return kw\n\n"
            "def lod(k):\n    return k\n\n"
            "mcp__fin__qurey(a=lod(1))\n"
        )
        self.assertIsNone(check(source))

    def test_a_program_that_may_bind_names_unseen_is_not_told_they_are_unknown(self):
        self.assertIsNone(check("globals()['lod'] = print\nlod('k')\n"))
        self.assertIsNone(check("from os.path import *\nr = await query_everything(x=1)\n"))

    def test_builtins_are_known(self):
        self.assertIsNone(check("print(len(sorted([3, 1])))\n"))


class ArgumentsTest(unittest.TestCase):
    def test_positional_arguments_are_refused(self):
        report = check("await mcp__fin__query('ACME')\n")
        self.assertIn("mcp__fin__query(): takes keyword arguments only (got 1 positional)", report)
        self.assertIn("missing required argument 'ticker'", report)

    def test_an_unknown_keyword_gets_the_parameter_most_likely_meant(self):
        report = check("await mcp__fin__query(tikcer='ACME')\n")
        self.assertIn("unexpected argument 'tikcer' (did you mean 'ticker'?)", report)
        # The required name already suggested is not listed as missing too.
        self.assertNotIn("missing", report)

    def test_wrong_names_are_matched_one_to_one(self):
        report = check("await mcp__calc__get_sum(x=1, y=2)\n")
        self.assertIn("unexpected argument 'x' (did you mean 'a'?)", report)
        self.assertIn("unexpected argument 'y' (did you mean 'b'?)", report)
        self.assertEqual(match_names(["x", "y"], ["a", "b"]), {"x": "a", "y": "b"})
        self.assertEqual(match_names(["sort_by"], ["sortBy", "limit"]), {"sort_by": "sortBy"})

    def test_a_keyword_near_nothing_lists_what_is_accepted(self):
        report = check("await mcp__fin__query(ticker='A', zzzzzz=1)\n")
        self.assertIn("unexpected argument 'zzzzzz' (accepted: ticker, limit, period, ratio)", report)

    def test_a_tool_without_parameters_says_so_and_an_open_one_takes_anything(self):
        report = check("await mcp__clock__now(tz='UTC')\n")
        self.assertIn("unexpected argument 'tz' (this tool takes no arguments)", report)
        self.assertIsNone(check("await mcp__any__echo(tz='UTC', n=1)\n"))

    def test_missing_required_arguments_are_named_all_at_once(self):
        report = check("await mcp__calc__get_sum()\n")
        self.assertIn("missing required arguments 'a', 'b'", report)


class LiteralValuesTest(unittest.TestCase):
    def test_a_literal_of_the_wrong_json_type_is_named_with_what_was_wanted(self):
        report = check("await mcp__fin__query(ticker='A', limit='4')\n")
        self.assertIn("argument 'limit' is a str ('4'); it must be an int", report)

    def test_an_f_string_is_a_str(self):
        report = check("n = 4\nawait mcp__fin__query(ticker='A', limit=f'{n}')\n")
        self.assertIn("argument 'limit' is a str", report)

    def test_none_for_a_required_argument_is_wrong(self):
        report = check("await mcp__fin__query(ticker=None)\n")
        self.assertIn("argument 'ticker' is None; it must be a str", report)

    def test_numbers_fit_as_json_does(self):
        # An int is a number; a float with no fraction is an integer; a bool is neither.
        self.assertIsNone(check("await mcp__fin__query(ticker='A', ratio=2, limit=4.0)\n"))
        report = check("await mcp__fin__query(ticker='A', limit=True)\n")
        self.assertIn("argument 'limit' is a bool (True); it must be an int", report)

    def test_a_value_outside_the_enum_lists_the_allowed_ones(self):
        report = check("await mcp__fin__query(ticker='A', period='weekly')\n")
        self.assertIn("argument 'period' is 'weekly', not one of 'annual', 'quarterly'", report)

    def test_a_long_value_is_shown_cut(self):
        report = check(f"await mcp__fin__query(ticker='A', limit={'x' * 500!r})\n")
        line = next(line for line in report.splitlines() if "argument 'limit'" in line)
        self.assertLess(len(line), 200)
        self.assertIn("…", line)


class AwaitTest(unittest.TestCase):
    def test_a_tool_call_never_awaited_is_named(self):
        report = check("mcp__fin__query(ticker='A')\n")
        self.assertIn(
            "line 1: mcp__fin__query(): never awaited, so it would never run:"
            " write `await mcp__fin__query(...)`",
            report,
        )

    def test_a_coroutine_used_as_a_value_is_never_awaited(self):
        for source in (
            "r = mcp__fin__query(ticker='A')['rows']\n",
            "for row in mcp__fin__query(ticker='A'):\n    pass\n",
            "print(mcp__fin__query(ticker='A'))\n",
            "s = f'{mcp__fin__query(ticker=\"A\")}'\n",
            "print(load('k'))\n",
        ):
            with self.subTest(source=source):
                self.assertIn("never awaited", check(source) or "")

    def test_a_call_kept_for_later_is_left_alone(self):
        # Gathered, wrapped in a task, or kept in a variable: the run finds out whether it ran.
        source = (
            "calls = [mcp__fin__query(ticker=t) for t in 'AB']\n"
            "rs = await asyncio.gather(*calls, mcp__fin__query(ticker='C'))\n"
            "x = load('k')\n"
            "v = await x\n"
        )
        self.assertIsNone(check(source))

    def test_a_helper_result_kept_and_never_awaited_is_named(self):
        report = check("x = load('k')\nprint(x)\n")
        self.assertIn("line 1: load(): never awaited", report)
        self.assertIn("`x = await load(...)`", report)

    def test_a_sync_helper_awaited_is_named(self):
        report = check("await emit(1)\n")
        self.assertIn("emit(): is not async: call it without await, `emit(...)`", report)


class HelpersTest(unittest.TestCase):
    def test_a_helper_call_is_checked_against_its_python_signature(self):
        report = check("v = await load()\n")
        self.assertIn("load(): missing a required argument: 'key'", report)
        self.assertIn("    load(key, default=None)", report)

    def test_a_misspelt_helper_keyword_gets_the_right_one(self):
        report = check("v = await load(kye='k')\n")
        self.assertIn("('kye': did you mean 'key'?)", report)


class ReportTest(unittest.TestCase):
    def test_every_problem_is_reported_at_once_in_line_order(self):
        report = check("await mcp__calc__get_sum()\nmcp__clock__now()\nawait lod('k')\n")
        lines = report.splitlines()
        self.assertTrue(lines[0].startswith("PreflightError: 3 problems found before the program ran;"))
        self.assertIn("nothing ran and no tool was called. Fix them all and run the program again:", lines[0])
        numbered = [line for line in lines if line.startswith("  line ")]
        self.assertEqual([line.split(":")[0] for line in numbered], ["  line 1", "  line 2", "  line 3"])

    def test_the_report_is_bounded(self):
        source = "".join(f"mcp__clock__now(n={n})\n" for n in range(preflight.MAX_PROBLEMS + 5))
        report = check(source)
        self.assertIn(f"PreflightError: {preflight.MAX_PROBLEMS + 5} problems", report)
        listed = [line for line in report.splitlines() if line.startswith("  line ")]
        self.assertEqual(len(listed), preflight.MAX_PROBLEMS)
        self.assertTrue(report.endswith("  ... and 5 more"))

    def test_matching_is_bounded_for_a_call_with_thousands_of_made_up_names(self):
        names = [f"n{i}" for i in range(5000)]
        meant = match_names(names, ["n1x", "n2x"])
        self.assertLessEqual(len(meant), 2)

    def test_a_spec_of_the_wrong_shape_checks_names_only(self):
        self.assertIsNone(preflight.check("print(1)\n", {}, None))
        source = "await mcp__fin__query('A')\nlod(1)\n"
        report = preflight.check(source, {"load": load}, ["not", "a", "dict"])
        self.assertIn("name 'lod' is not defined; did you mean load?", report)
        self.assertNotIn("positional", report)


if __name__ == "__main__":
    unittest.main()
