"""The preflight check's guess at the parameter a wrong keyword meant (src/execution/runner/arguments.py):
by the names' likeness, and by what the call and the schema say besides (the value's type, the
required parameter left out)."""

import ast
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner.arguments import tool_call_problems

# server-filesystem's read_text_file: path (required), and head/tail (numbers of lines).
READ_TEXT_FILE = {
    "params": {"path": {"types": ["string"]}, "tail": {"types": ["number"]}, "head": {"types": ["number"]}},
    "required": ["path"],
}


def problems(source, spec):
    call = ast.parse(source).body[0].value
    assert isinstance(call, ast.Call)
    return tool_call_problems(call, spec)


class MeantParameter(unittest.TestCase):
    def test_a_string_for_file_meant_the_required_path_not_tail(self):
        self.assertEqual(
            problems('read_text_file(file="notes.txt")', READ_TEXT_FILE),
            ["unexpected argument 'file' (did you mean 'path'?)"],
        )

    def test_a_computed_value_for_file_still_meant_the_required_path(self):
        self.assertEqual(
            problems("read_text_file(file=name)", READ_TEXT_FILE),
            ["unexpected argument 'file' (did you mean 'path'?)"],
        )

    def test_a_number_is_not_taken_for_a_string_parameter(self):
        self.assertEqual(
            problems('read_text_file(path="a.txt", tial=5)', READ_TEXT_FILE),
            ["unexpected argument 'tial' (did you mean 'tail'?)"],
        )
        spec = {"params": {"path": {"types": ["string"]}}, "required": ["path"]}
        self.assertEqual(
            problems("read(lines=5)", spec),
            ["unexpected argument 'lines' (accepted: path)", "missing required argument 'path'"],
        )

    def test_short_names_still_pair_one_to_one(self):
        spec = {"params": {"a": {"types": ["number"]}, "b": {"types": ["number"]}}, "required": ["a", "b"]}
        self.assertEqual(
            problems("get_sum(x=1, y=2)", spec),
            ["unexpected argument 'x' (did you mean 'a'?)", "unexpected argument 'y' (did you mean 'b'?)"],
        )


if __name__ == "__main__":
    unittest.main()
