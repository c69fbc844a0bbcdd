"""The child's end of the private channel to the parent: newline-delimited JSON, one object per
line, both ways (message types and fields: src/execution/protocol/channel-messages.ts). Loaded by runner.py
before confinement.

A result whose value is a tool's lone text item arrives as a header line (the parent always writes
`text_bytes` first), then exactly `text_bytes` bytes of UTF-8 and a newline; its value is the
text's JSON when it parses, else the string (SPEC §6). Large results thus cross the channel once,
unescaped, and are parsed once, here.
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Callable, Iterator
from typing import Any

READ_SIZE = 65536
TEXT_HEADER = b'{"text_bytes":'
# The header as the parent writes it (channel.ts sendText); any other spelling is parsed as JSON.
_HEADER = re.compile(rb'\{"text_bytes":(\d+),"type":"result","id":(\d+),"ok":true\}\Z')
# The first character of every JSON text, after whitespace.
_JSON_STARTS = frozenset('{["-0123456789tfn')
_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# The C encoder JSONEncoder uses (None without the _json accelerator).
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)

# json.loads for the parent's lines (UTF-8 always): without its encoding detection on every line.
_decode_text = json.JSONDecoder().decode


def _loads(line: bytes | bytearray) -> Any:
    return _decode_text(line.decode("utf-8", "surrogatepass"))


def _encoder(ensure_ascii: bool) -> Callable[[Any], str]:
    """JSONEncoder(...).encode for messages, made once: `encode` makes its C encoder anew for
    every value (half its time on a small message); this one is made here and reused."""
    encoder = json.JSONEncoder(ensure_ascii=ensure_ascii, allow_nan=False, separators=(",", ":"))
    if _c_make_encoder is None:
        return encoder.encode
    markers: dict[int, Any] = {}
    strings = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    try:
        # As JSONEncoder.iterencode makes it (Python 3.10 to 3.13).
        chunks = _c_make_encoder(markers, encoder.default, strings, None, ":", ",", False, False, False)
    except TypeError:
        return encoder.encode

    def encode(obj: Any) -> str:
        try:
            return "".join(chunks(obj, 0))
        except BaseException:
            # A failed encoding leaves the containers it was in as markers (circular references).
            markers.clear()
            raise

    return encode


class Channel:
    """The private socket to the parent. Blocking writes; reads are blocking before the program
    runs and non-blocking (driven by the event loop) while it runs."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.partial: list[bytes] = []
        # Complete messages, in order: a JSON line, or (result header, text payload).
        self.lines: list[Any] = []
        # [result header, bytearray for the payload and its newline, bytes filled] while a text arrives.
        self.text: Any = None
        self.encode = _encoder(ensure_ascii=False)
        self.encode_ascii = _encoder(ensure_ascii=True)
        # NaN and Infinity are Python's extensions, not JSON: such a text stays a string.
        self.decode_strict = json.JSONDecoder(parse_constant=_reject_constant).decode

    @classmethod
    def from_fd(cls, fd: int) -> Channel:
        sock = socket.socket(fileno=fd)
        sock.setblocking(True)
        return cls(sock)

    def feed(self, chunk: bytes) -> None:
        start = 0
        end = len(chunk)
        lines = self.lines
        while start < end:
            if self.text is not None:
                start = self._fill_text(chunk, start)
                continue
            nl = chunk.find(b"\n", start)
            if nl < 0:
                self.partial.append(chunk[start:])
                return
            if self.partial:
                self.partial.append(chunk[start:nl])
                line = b"".join(self.partial)
                self.partial = []
            else:
                line = chunk[start:nl]
            start = nl + 1
            if line.startswith(TEXT_HEADER):
                header = _HEADER.match(line)
                if header:
                    size, call_id = int(header[1]), int(header[2])
                    result = {"text_bytes": size, "type": "result", "id": call_id, "ok": True}
                else:
                    result = _loads(line)
                after = start + result["text_bytes"]
                if after < end:
                    # The payload and its newline came in this chunk (a small result): taken whole.
                    lines.append((result, bytearray(memoryview(chunk)[start:after])))
                    start = after + 1
                else:
                    # Room for the payload and the newline after it.
                    self.text = [result, bytearray(result["text_bytes"] + 1), 0]
            else:
                lines.append(line)

    def _fill_text(self, chunk: bytes, start: int) -> int:
        text = self.text
        buffer, filled = text[1], text[2]
        count = min(len(buffer) - filled, len(chunk) - start)
        buffer[filled : filled + count] = memoryview(chunk)[start : start + count]
        text[2] = filled + count
        if text[2] == len(buffer):
            self._text_done()
        return start + count

    def _text_done(self) -> None:
        result, buffer, _ = self.text
        self.text = None
        del buffer[-1]  # the newline after the payload
        self.lines.append((result, buffer))

    def receive(self, flags: int = 0) -> int:
        """One read from the socket: a chunk of lines, or straight into the text payload being
        received. Returns the number of bytes read (0: the parent is gone); with MSG_DONTWAIT,
        raises BlockingIOError when there is nothing to read."""
        text = self.text
        if text is None:
            chunk = self.sock.recv(READ_SIZE, flags)
            if chunk:
                self.feed(chunk)
            return len(chunk)
        count = self.sock.recv_into(memoryview(text[1])[text[2] :], 0, flags)
        text[2] += count
        if text[2] == len(text[1]):
            self._text_done()
        return count

    def receive_blocking(self) -> Any:
        """The next message, waiting for it; exits when the parent is gone."""
        while not self.lines:
            try:
                count = self.receive()
            except InterruptedError:
                continue
            except OSError:
                count = 0
            if not count:
                os._exit(0)  # the parent is gone: nothing left to do
        return _loads(self.lines.pop(0))

    def receive_available(self) -> None:
        """Reads what the socket holds, without blocking; exits when the parent is gone."""
        while True:
            try:
                count = self.receive(_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                count = 0
            if not count:
                os._exit(1)  # parent gone
            # A short read of lines means the socket is drained: save the syscall that says so.
            if count < READ_SIZE and self.text is None:
                break

    def messages(self) -> Iterator[tuple[dict[str, Any], bytearray | None]]:
        """The complete messages received, in order, each as (message, text payload or None)."""
        lines = self.lines
        while lines:
            line = lines.pop(0)
            if type(line) is tuple:
                yield line
            else:
                yield _loads(line), None

    def text_value(self, payload: bytes | bytearray) -> Any:
        """A lone text item's value: its JSON when it parses, else the string (SPEC §6)."""
        text = payload.decode("utf-8", "replace")
        # Plain prose cannot be JSON: spare it the failed parse (and its exception).
        head = text[:64].lstrip(" \t\r\n")
        if head and head[0] not in _JSON_STARTS:
            return text
        try:
            return self.decode_strict(text)
        except (ValueError, RecursionError):
            return text

    def to_bytes(self, obj: Any) -> bytes:
        """Serialises a message. Raises TypeError/ValueError for values that are not JSON."""
        text = self.encode(obj)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates: \\ud800 escapes are valid JSON and survive the trip.
            return self.encode_ascii(obj).encode("ascii")

    def send_bytes(self, data: bytes) -> None:
        try:
            self.sock.sendall(data + b"\n")
        except OSError:
            os._exit(1)

    def send(self, obj: Any) -> None:
        self.send_bytes(self.to_bytes(obj))

    def forget(self) -> None:
        """Drops what was received and not read yet (a forked fork server child must not hold the
        requests of the children after it)."""
        self.partial.clear()
        self.lines.clear()
        self.text = None

    def linger(self) -> None:
        """Waits until the parent closes the channel (or kills this process)."""
        try:
            while self.sock.recv(READ_SIZE):
                pass
        except BaseException:
            pass
