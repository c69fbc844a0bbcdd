"""The channel's encoder (src/execution/runner/channel.py), made once and reused for every
message: it writes what JSONEncoder.encode writes, refuses what it refuses, and a refused value
leaves nothing behind for the next one."""

import json
import math
import unittest

from _channel_case import ChannelCase

REFERENCE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


class ChannelEncodingTest(ChannelCase):
    def test_messages_are_written_as_json_encoder_writes_them(self):
        for value in (
            {"type": "call", "tool": "mcp__a__b", "args": {"q": "caf\u00e9", "n": [1, 2.5, None]}, "id": 3},
            "a plain string",
            [],
            {"nested": {"deep": [{"x": "\u2028\n\"quoted\""}]}},
        ):
            self.assertEqual(self.channel.to_bytes(value), REFERENCE(value).encode("utf-8"))

    def test_lone_surrogates_are_escaped(self):
        self.assertEqual(self.channel.to_bytes({"s": "\ud800"}), b'{"s":"\\ud800"}')

    def test_what_json_refuses_is_refused(self):
        for value in ({"x": object()}, {"x": math.nan}, {"x": math.inf}):
            with self.assertRaises((TypeError, ValueError)):
                self.channel.to_bytes(value)

    def test_a_refused_value_leaves_no_false_circular_reference(self):
        value = {"rows": [1, object()]}
        with self.assertRaises(TypeError):
            self.channel.to_bytes(value)
        value["rows"].pop()
        self.assertEqual(self.channel.to_bytes(value), b'{"rows":[1]}')

    def test_a_circular_value_is_refused_and_the_next_one_is_not(self):
        looped = []
        looped.append(looped)
        with self.assertRaises(ValueError):
            self.channel.to_bytes({"x": looped})
        self.assertEqual(self.channel.to_bytes({"x": [[]]}), b'{"x":[[]]}')


if __name__ == "__main__":
    unittest.main()
