"""What a program finds in its globals besides its tools (SPEC §6, §14): the table HELPERS.

Adding a helper: write its factory here and give it an entry in HELPERS. A helper the parent
answers calls `runner.calls.ask(name, ...)` and has its answer in src/execution/program-helpers.ts;
channel-messages.test.ts checks that both sides name the same helpers.
"""

def _tool_error(runner):
    return runner.modules.calls.ToolError


def _media(runner):
    return runner.modules.media.Media


def _emit(runner):
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


def _show(runner):
    channel = runner.channel
    return runner.modules.media.make_show(
        lambda mime_type, data: channel.send({"type": "show", "mime_type": mime_type, "data": data})
    )


def _list_callable_tools(runner):
    ask = runner.calls.ask

    async def list_callable_tools(query=None, server=None):
        """The names of the tools this program can call; with `query`, the best 20 matches and
        their first description line; with `server`, that server's only (not counted)."""
        return await ask("list_callable_tools", query=query, server=server)

    return list_callable_tools


def _inspect_tool(runner):
    ask = runner.calls.ask

    async def inspect_tool(tool_name=None, tool_names=None, brief=False):
        """Description, schemas and Python signature of a tool, or of several (`tool_names`: a
        list, or a glob like mcp__server__*); `brief=True`: signature and first line (not counted)."""
        return await ask("inspect_tool", tool_name=tool_name, tool_names=tool_names, brief=brief or None)

    return inspect_tool


def _server_status(runner):
    ask = runner.calls.ask

    async def server_status():
        """Connection state of every downstream server (not counted)."""
        return await ask("server_status")

    return server_status


# Name in the program's globals -> factory of its value, given the runner. In this order.
HELPERS = {
    "ToolError": _tool_error,
    "Media": _media,
    "emit": _emit,
    "show": _show,
    "list_callable_tools": _list_callable_tools,
    "inspect_tool": _inspect_tool,
    "server_status": _server_status,
}


def build(runner):
    """The helpers' values, by name, for one run."""
    values = {}
    for name, factory in HELPERS.items():
        value = factory(runner)
        if callable(value) and not isinstance(value, type):
            # Errors and warnings name the helper as the program wrote it, not a factory's locals.
            value.__qualname__ = name
        values[name] = value
    return values
