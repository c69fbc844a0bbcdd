"""What a program finds in its globals besides its tools (SPEC §6, §6.2, §14): the table HELPERS.

Adding a helper: write its factory here and give it an entry in HELPERS. A helper the parent
answers calls `runner.calls.ask(name, ...)` and has its answer in src/execution/calls/program-helpers.ts;
channel-messages.integration.test.ts checks that both sides name the same helpers.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .calls import ToolError
from .media import Media, make_show

if TYPE_CHECKING:
    from .program import Runner


def _tool_error(runner: Runner) -> Any:
    return ToolError


def _media(runner: Runner) -> Any:
    return Media


def _emit(runner: Runner) -> Any:
    to_bytes = runner.channel.to_bytes

    def emit(value):
        """Return `value` (JSON-serialisable) as the program's structured result; the last call wins."""
        try:
            data = to_bytes(value)
        except (TypeError, ValueError, RecursionError) as exc:
            raise TypeError(f"emit() needs a JSON-serialisable value ({exc})") from None
        if len(data) > runner.max_emit_bytes:
            raise ValueError(
                f"emit() value is {len(data)} bytes of JSON, over the {runner.max_emit_bytes}-byte"
                " limit (max_output_bytes); emit a summary instead"
            )
        runner.emitted = data

    return emit


def _show(runner: Runner) -> Any:
    channel = runner.channel
    return make_show(
        lambda mime_type, data: channel.send({"type": "show", "mime_type": mime_type, "data": data})
    )


# A Media object inside a stored value, as JSON: {"__ptc_media__": {type, mime_type, ...}}.
_MEDIA_KEY = "__ptc_media__"
_MEDIA_MARK = b'"__ptc_media__"'
_MEDIA_FIELDS = ("type", "mime_type", "size", "data", "text", "uri")
# Room for the key and the message around a stored value: the parent checks the value exactly.
_STORE_ROOM = 2048


def _check_key(helper: str, key: object) -> None:
    """The state helpers take a str key: anything else is the program's TypeError."""
    if not isinstance(key, str):
        raise TypeError(f"{helper}() takes a str key, not {type(key).__name__}")


def _store(runner: Runner) -> Any:
    calls = runner.calls
    tool_error = ToolError
    media_class = Media

    def media_json(obj: object) -> dict[str, Any]:
        if isinstance(obj, media_class):
            return {_MEDIA_KEY: {field: getattr(obj, field) for field in _MEDIA_FIELDS}}
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")

    options = {"allow_nan": False, "separators": (",", ":"), "default": media_json}
    encode_utf8 = json.JSONEncoder(ensure_ascii=False, **options).encode
    encode_ascii = json.JSONEncoder(ensure_ascii=True, **options).encode

    def encode(message: Any) -> bytes:
        try:
            text = encode_utf8(message)
            try:
                return text.encode("utf-8")
            except UnicodeEncodeError:  # lone surrogates: their escapes are valid JSON
                return encode_ascii(message).encode("ascii")
        except RecursionError:
            raise tool_error(
                "store(): the value is nested too deep to keep; flatten it", tool="store", kind="too_large"
            ) from None

    def check_size(size: int) -> None:
        limit = int(runner.state_limits.get("max_value_bytes") or 0)
        if size > limit + _STORE_ROOM:
            raise tool_error(
                f"store(): the value is about {size} bytes of JSON, over the {limit}-byte limit per"
                " value (state.max_value_bytes); store a summary, or split it under several keys",
                tool="store",
                kind="max_value_bytes",
            )

    async def store(key, value):
        """Keep `value` (JSON-serialisable; Media objects too) under `key` (a str) for the next
        programs of this session; returns its size in bytes. Raises ToolError over a bound."""
        _check_key("store", key)
        return await calls.ask("store", _encode=encode, _max_bytes=check_size, key=key, value=value)

    return store


def _load(runner: Runner) -> Any:
    calls = runner.calls
    channel = runner.channel
    media_class = Media

    class Found:
        __slots__ = ("value",)

        def __init__(self, value: Any) -> None:
            self.value = value

    def restore(value: Any) -> Any:
        # At most 64 levels deep: the parent refuses deeper values.
        if isinstance(value, dict):
            inner = value.get(_MEDIA_KEY)
            if len(value) == 1 and isinstance(inner, dict):
                return media_class(*(inner.get(field) for field in _MEDIA_FIELDS))  # pyright: ignore[reportArgumentType]
            for key, item in value.items():
                value[key] = restore(item)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                value[index] = restore(item)
        return value

    def decode(payload: bytearray) -> Found:
        value = channel.text_value(payload)
        return Found(restore(value) if _MEDIA_MARK in payload else value)

    async def load(key, default=None):
        """The value stored under `key` by this or an earlier program of this session, or
        `default` when there is none."""
        _check_key("load", key)
        answer = await calls.ask("load", _decode=decode, key=key)
        return answer.value if isinstance(answer, Found) else default

    return load


def _stored(runner: Runner) -> Any:
    ask = runner.calls.ask

    async def stored():
        """The keys stored in this session, with the size of each value in bytes (as JSON)."""
        return await ask("stored")

    return stored


def _forget(runner: Runner) -> Any:
    ask = runner.calls.ask

    async def forget(key):
        """Removes `key` and its value from this session; True if it was stored."""
        _check_key("forget", key)
        return await ask("forget", key=key)

    return forget


def _list_callable_tools(runner: Runner) -> Any:
    ask = runner.calls.ask

    async def list_callable_tools(query=None, server=None):
        """The names of the tools this program can call; with `query`, the best 20 matches and
        their first description line; with `server`, that server's only (not counted)."""
        return await ask("list_callable_tools", query=query, server=server)

    return list_callable_tools


def _inspect_tool(runner: Runner) -> Any:
    ask = runner.calls.ask

    async def inspect_tool(tool_name=None, tool_names=None, brief=False):
        """Description, schemas and Python signature of a tool, or of several (`tool_names`: a
        list, or a glob like mcp__server__*); `brief=True`: signature and first line (not counted)."""
        return await ask("inspect_tool", tool_name=tool_name, tool_names=tool_names, brief=brief or None)

    return inspect_tool


def _server_status(runner: Runner) -> Any:
    ask = runner.calls.ask

    async def server_status():
        """Connection state of every downstream server (not counted)."""
        return await ask("server_status")

    return server_status


def _run_program(runner: Runner) -> Any:
    ask = runner.calls.ask

    async def run_program(name, **arguments):
        """Run the saved program `name` with its main()'s keyword arguments; returns what its main()
        returns (or what it emits). Counted as one tool call; its own calls count too."""
        found = await ask("run_program", program=name, arguments=arguments)
        return await runner.run_saved(str(name), found)

    return run_program


# Name in the program's globals -> factory of its value, given the runner. In this order.
HELPERS = {
    "ToolError": _tool_error,
    "Media": _media,
    "emit": _emit,
    "show": _show,
    "list_callable_tools": _list_callable_tools,
    "inspect_tool": _inspect_tool,
    "server_status": _server_status,
    "store": _store,
    "load": _load,
    "stored": _stored,
    "forget": _forget,
    "run_program": _run_program,
}


def build(runner: Runner) -> dict[str, Any]:
    """The helpers' values, by name, for one run."""
    values = {}
    for name, factory in HELPERS.items():
        value = factory(runner)
        if callable(value) and not isinstance(value, type):
            # Errors and warnings name the helper as the program wrote it, not a factory's locals.
            value.__qualname__ = name
        values[name] = value
    return values
