import type {ExecutionConfig} from '../config/schema.js'

/** What the model needs to write a working program, with the limits in force. */
export function executeProgramDescription(execution: ExecutionConfig): string {
  return `Run one Python program that calls many MCP tools; only what it prints (and an optional emit() value) comes back.
Use it instead of calling tools one by one when a task needs several calls, loops, filtering or aggregation: intermediate results stay inside the program.

How programs work:
- Python 3 standard library only (no pip packages), no network, no subprocesses, files only in the current (scratch) directory, which is deleted afterwards. Every run is fresh: nothing survives between programs.
- Top-level await works. Every tool from list_callable_tools is an async function named mcp__<server>__<tool>; call it with keyword arguments only: \`rows = await mcp__fin__query(ticker="AAPL", limit=4)\`. Arguments must be JSON-serialisable and are validated against the tool's input schema before anything is sent.
- Results are already parsed JSON (dict, list, str, number or None): structured content when the tool declares it, otherwise the text parsed as JSON when it parses, else the plain string. Extra text that is not part of the value is kept in a "_notes" list on it; a value that cannot carry notes is wrapped as {"data": value, "_notes": [...]}. Images and other non-text content are replaced by a note.
- A failed call raises ToolError (an Exception subclass available by name): tool errors, invalid arguments, timeouts, unavailable servers, results too large. Catch it to carry on.
- Some calls may need the user's approval (inspect_tool shows needs_approval): the program pauses while they decide. A refusal raises ToolError with .kind == "denied" and the call is not made: do not retry it; say what you wanted to do instead.
- Fan out with asyncio.gather(*[mcp__x__y(id=i) for i in ids]); at most ${execution.max_concurrent_calls} calls run at once.
- print() what the user needs to see, concisely. emit(value) returns one JSON-serialisable structured result (the last call wins).
- Helpers (not counted against the budget): await list_callable_tools(), await inspect_tool(tool_name="mcp__x__y") (schema and Python signature), await server_status().

Limits: ${execution.max_tool_calls} tool calls per program, ${execution.max_concurrent_calls} at once, ${execution.tool_call_timeout_seconds}s per call, ${execution.timeout_seconds}s per program (wall clock), ${execution.max_output_bytes} bytes of output, ${execution.max_tool_result_bytes} bytes per tool result.
Call list_callable_tools first, and inspect_tool for any tool whose arguments or return shape you do not know.`
}

export const LIST_CALLABLE_TOOLS_DESCRIPTION = `List the MCP tools a program run by execute_program can call, as a JSON array of names (mcp__<server>__<tool>). Servers that are temporarily unavailable are named in a second item.`

export const INSPECT_TOOL_DESCRIPTION = `Show one callable tool: its description, input schema, output schema (null when the server declares none: then inspect the return value at runtime) and the Python call signature to use inside execute_program, e.g. "await mcp__fin__query(*, ticker: str, limit: int = 4) -> dict"; needs_approval when the user is asked before each call.`
