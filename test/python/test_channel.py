"""The one framer of the runtime (src/execution/runner/channel.py): a program child's channel to
its parent, and the fork server's to its server (zygote.py). Newline-delimited JSON, a lone text
result as a header and its raw bytes, and what a forked child must not keep."""

import json
import socket
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner.channel import Channel


def pair():
    ours, theirs = socket.socketpair()
    return Channel(ours), theirs


class ChannelTest(unittest.TestCase):
    def test_messages_split_across_reads_arrive_whole_and_in_order(self):
        channel, peer = pair()
        with peer:
            channel.feed(b'{"type":"fork","id":1}\n{"type":"ki')
            channel.feed(b'll","id":1}\n{"type":')
            got = [message for message, _text in channel.messages()]
            self.assertEqual(got, [{"type": "fork", "id": 1}, {"type": "kill", "id": 1}])
            self.assertEqual(b"".join(channel.partial), b'{"type":')

    def test_a_text_result_arrives_as_its_raw_bytes(self):
        channel, peer = pair()
        with peer:
            text = 'caf\u00e9 {"a": 1}\nsecond line'.encode()
            header = json.dumps({"text_bytes": len(text), "type": "result", "id": 7, "ok": True})
            peer.sendall(header.encode() + b"\n" + text + b"\n" + b'{"type":"run"}\n')
            while len(channel.lines) < 2:
                self.assertGreater(channel.receive(), 0)
            (result, payload), (run, none) = list(channel.messages())
            self.assertEqual(result["id"], 7)
            self.assertEqual(bytes(payload), text)
            self.assertEqual(run, {"type": "run"})
            self.assertIsNone(none)

    def test_send_writes_one_compact_line(self):
        channel, peer = pair()
        with peer:
            channel.send({"type": "ready", "confine": None, "text": "\ud800"})
            line = peer.recv(1024)
            self.assertTrue(line.endswith(b"\n"))
            self.assertEqual(line.count(b"\n"), 1)
            self.assertEqual(json.loads(line), {"type": "ready", "confine": None, "text": "\ud800"})

    def test_forget_drops_what_was_received_and_not_read(self):
        channel, peer = pair()
        with peer:
            channel.feed(b'{"type":"fork","id":1,"token":"a"}\n{"type":"fork","id":2,"token":"b"}\n{"ty')
            messages = channel.messages()
            self.assertEqual(next(messages)[0]["id"], 1)
            channel.forget()
            self.assertEqual(list(messages), [])
            self.assertEqual((channel.lines, channel.partial, channel.text), ([], [], None))


if __name__ == "__main__":
    unittest.main()
