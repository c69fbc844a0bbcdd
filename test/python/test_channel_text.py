"""A lone text result on the channel (src/execution/runner/channel.py): its header line, then its
raw bytes and a newline. Whether the payload comes in the header's chunk (taken whole) or over
several reads (filled as it comes), the program gets the same bytes, and what follows is read."""

import json
import unittest

from _channel_case import ChannelCase


def stream(text: bytes, call_id: int, separators=(",", ":")) -> bytes:
    """As the parent writes it (channel.ts sendText), or spelled with other `separators`."""
    header = {"text_bytes": len(text), "type": "result", "id": call_id, "ok": True}
    return json.dumps(header, separators=separators).encode() + b"\n" + text + b"\n"


class ChannelTextTest(ChannelCase):
    def received(self):
        messages = self.channel.messages()
        return [(message, None if text is None else bytes(text)) for message, text in messages]

    def test_the_same_messages_whatever_the_chunks(self):
        data = stream("caf\u00e9\n{}".encode(), 1) + stream(b"", 2) + b'{"type":"run"}\n' + stream(b"x", 3)
        expected = [
            ({"text_bytes": 8, "type": "result", "id": 1, "ok": True}, "caf\u00e9\n{}".encode()),
            ({"text_bytes": 0, "type": "result", "id": 2, "ok": True}, b""),
            ({"type": "run"}, None),
            ({"text_bytes": 1, "type": "result", "id": 3, "ok": True}, b"x"),
        ]
        self.channel.feed(data)
        self.assertEqual(self.received(), expected)
        for cut in range(1, len(data)):
            self.channel.feed(data[:cut])
            self.channel.feed(data[cut:])
            self.assertEqual(self.received(), expected, f"split at {cut}")
        for byte in range(len(data)):
            self.channel.feed(data[byte : byte + 1])
        self.assertEqual(self.received(), expected)

    def test_a_header_spelled_otherwise_is_read_as_json(self):
        self.channel.feed(stream(b"[1]", 5, separators=(", ", ": ")))
        header = {"text_bytes": 3, "type": "result", "id": 5, "ok": True}
        self.assertEqual(self.received(), [(header, b"[1]")])

    def test_a_payload_ending_the_chunk_waits_for_its_newline(self):
        data = stream(b"abc", 4)
        self.channel.feed(data[:-1])
        self.assertEqual(self.received(), [])
        self.channel.feed(data[-1:] + b'{"type":"run"}\n')
        self.assertEqual(
            self.received(),
            [({"text_bytes": 3, "type": "result", "id": 4, "ok": True}, b"abc"), ({"type": "run"}, None)],
        )


if __name__ == "__main__":
    unittest.main()
