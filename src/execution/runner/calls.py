"""Tool calls and helper requests of a program: ids, the futures waiting for their results, and the
async functions a program calls its tools by (SPEC §6)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .channel import Channel
    from .program_habits import NeverAwaited

# The file name of the code every tool call's coroutine runs (see ToolCalls.__init__).
CALL_FILE = "<tool call>"
# Compiled once per process (a fork server's children share it): see ToolCalls.__init__. It sends
# the call at its first step and awaits the answer's future itself: one coroutine per call, not one
# more for the request.
_CALL_CODE = compile(
    "async def call(name, record, kwargs, started, send_call, cancel):\n"
    "    started(record)\n"
    "    future, call_id = send_call(name, kwargs)\n"
    "    try:\n"
    "        return await future\n"
    "    except CancelledError:\n"
    "        cancel(call_id)\n"
    "        raise\n",
    CALL_FILE,
    "exec",
)


class ToolError(Exception):
    """A tool call failed. .message: what happened and what to do next; .tool: the tool's
    name; .kind: tool_error, invalid_arguments, unknown_tool, unavailable, timeout, budget,
    too_large, schema_mismatch, denied, protocol, or the state bound exceeded: max_bytes,
    max_value_bytes, max_keys."""

    def __init__(self, message="", tool=None, kind="tool_error"):
        super().__init__(message)
        self.message = message
        self.tool = tool
        self.kind = kind


ToolError.__module__ = "__main__"
ToolError.__qualname__ = "ToolError"


class ToolCalls:
    """Sends a program's requests and hands each its result when the parent answers."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        channel: Channel,
        media: ModuleType,
        habits: ModuleType,
        never_awaited: NeverAwaited,
    ) -> None:
        self.loop = loop
        self.channel = channel
        self.media = media
        self.habits = habits
        self.never_awaited = never_awaited
        self.next_id = 0
        # Largest request message, in bytes (the run message's max_call_bytes).
        self.max_call_bytes = 0
        # id -> (future, tool name, decoder of a text answer or None)
        self.pending: dict[Any, tuple[asyncio.Future[Any], str, Callable[[Any], Any] | None]] = {}
        # The coroutine of every tool call runs this code, compiled under a name of its own: a
        # task's repr ("running at ...") and its traceback frames never show the runner's path.
        namespace: dict[str, Any] = {"CancelledError": asyncio.CancelledError}
        exec(_CALL_CODE, namespace)
        self.call_code = namespace["call"]

    def send_call(self, name: str, args: dict[str, Any]) -> tuple[asyncio.Future[Any], int]:
        """Sends a call to tool `name`: the future its answer settles, and the call's id."""
        self.next_id += 1
        return self.send({"type": "call", "tool": name, "args": args, "id": self.next_id}, name)

    def ask(
        self,
        name: str,
        _encode: Callable[[Any], bytes] | None = None,
        _decode: Callable[[Any], Any] | None = None,
        _max_bytes: Callable[[int], None] | None = None,
        **given: Any,
    ) -> Coroutine[Any, Any, Any]:
        """A helper the parent answers, with the arguments given (None: not given). `_encode`
        serialises the message instead of the channel; `_decode(text)` makes the value of an
        answer that comes as text; `_max_bytes` replaces max_call_bytes."""
        self.next_id += 1
        args = {key: value for key, value in given.items() if value is not None}
        message = {"type": "helper", "name": name, "args": args, "id": self.next_id}
        return self.request(lambda: self.send(message, name, _encode, _decode, _max_bytes))

    async def request(self, send: Callable[[], tuple[asyncio.Future[Any], int]]) -> Any:
        """Sends with `send` once awaited (a request never awaited sends nothing) and waits for its
        answer; cancelled, it tells the parent."""
        future, call_id = send()
        try:
            return await future
        except asyncio.CancelledError:
            self.cancel(call_id)
            raise

    def send(
        self,
        message: dict[str, Any],
        name: str,
        encode: Callable[[Any], bytes] | None = None,
        decode: Callable[[Any], Any] | None = None,
        max_bytes: Callable[[int], None] | None = None,
    ) -> tuple[asyncio.Future[Any], int]:
        """Sends a request (a call, or a helper named `name`): the future its answer settles, and
        the request's id."""
        channel = self.channel
        try:
            data = (encode or channel.to_bytes)(message)
        except (TypeError, ValueError, RecursionError) as exc:
            raise TypeError(f"{name}(): arguments must be JSON-serialisable ({exc})") from None
        if max_bytes is not None:
            max_bytes(len(data))
        elif len(data) > self.max_call_bytes:
            raise ToolError(
                f"{name}(): arguments are {len(data)} bytes, over the {self.max_call_bytes}-byte limit;"
                " pass less data per call",
                tool=name,
                kind="too_large",
            )
        future = self.loop.create_future()
        call_id = message["id"]
        self.pending[call_id] = (future, name, decode)
        channel.send_bytes(data)
        return future, call_id

    def cancel(self, call_id: int) -> None:
        """The program stopped waiting for request `call_id`: the parent is told, unless it answered."""
        if self.pending.pop(call_id, None) is not None:
            channel = self.channel
            channel.send_bytes(channel.to_bytes({"type": "cancel", "id": call_id}))

    def on_result(self, result: dict[str, Any], text: bytearray | None) -> None:
        """The parent's answer to a request (`text`: a lone text item's payload, else None)."""
        entry = self.pending.pop(result.get("id"), None)
        if entry is None or entry[0].done():
            return
        future, tool_name, decode = entry
        if result.get("ok"):
            if text is not None:
                future.set_result(decode(text) if decode else self.channel.text_value(text))
            elif result.get("media"):
                future.set_result(self.media.from_result(result.get("value")))
            else:
                future.set_result(result.get("value"))
        else:
            kind = result.get("kind")
            future.set_exception(
                ToolError(
                    str(result.get("error")),
                    tool=tool_name,
                    kind=kind if isinstance(kind, str) else "tool_error",
                )
            )

    def make_tool(self, name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
        """The async function a program calls tool `name` by."""
        never_awaited = self.never_awaited
        program_line = self.habits.program_line
        get_frame = sys._getframe
        call_code = self.call_code
        started = never_awaited.started
        send_call = self.send_call
        cancel = self.cancel

        # A plain function returning the call's coroutine: the line that made it is known, so a
        # call that is never awaited can be named.
        def tool(*args, **kwargs):
            if args:
                raise TypeError(
                    f"{name}() takes keyword arguments only (got {len(args)} positional);"
                    f" write: await {name}(name=value, ...)"
                )
            record = never_awaited.created(name, program_line(get_frame(1)), None)
            coroutine = call_code(name, record, kwargs, started, send_call, cancel)
            coroutine.__name__ = coroutine.__qualname__ = name
            record[2] = coroutine
            return coroutine

        tool.__name__ = tool.__qualname__ = name
        return tool
