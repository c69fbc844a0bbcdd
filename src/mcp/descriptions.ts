import type {ExecutionConfig, StateConfig} from '../config/schema.js'

import {TOOL_ERROR_KINDS} from '../downstream/index.js'
import {helpersOf, MAX_KEPT_BYTES, MAX_KEPT_FILES, PROGRAM_HELPERS} from '../execution/index.js'
import {formatByteLimit} from '../shared/byte-size.js'
import {MAX_SEARCH_RESULTS, MAX_SHOWN_BYTES, MAX_SHOWN_IMAGES, STATE_DEFAULTS} from '../shared/limits.js'

const usage = (group: 'discovery' | 'programs' | 'state') =>
  helpersOf(group)
    .map((name) => PROGRAM_HELPERS[name].usage)
    .join(', ')

/** The kinds of a ToolError over a bound of the kept state: the state line names them. */
const STATE_KINDS = new Set<string>([
  'max_bytes',
  'max_keys',
  'max_value_bytes',
] satisfies (typeof TOOL_ERROR_KINDS)[number][])

/**
 * What the model needs to write a working program, with the limits in force (SPEC §5). Every word
 * is read in every session: short, and nothing a model would not act on.
 */
export function executeProgramDescription(
  execution: ExecutionConfig,
  state: StateConfig = STATE_DEFAULTS,
): string {
  // A call cannot outlast its program: never show a per-call limit above the program's.
  const perCall = Math.min(execution.tool_call_timeout_seconds, execution.timeout_seconds)
  return `Run a Python program that calls the tools of list_callable_tools. Only what it prints (and an optional emit(value)) comes back: intermediate results stay out of your context. Use it when a task needs several calls, loops, filtering or aggregation.
- Python 3 standard library only; no network or subprocesses; files only in the current directory (${formatByteLimit(execution.max_scratch_bytes)}), deleted afterwards but for ./out/, kept for the user (${MAX_KEPT_FILES} files, ${formatByteLimit(MAX_KEPT_BYTES)} at most). Every run starts fresh but for what is kept (below).
- Each tool is an async function taking keyword arguments: \`r = await mcp__server__tool(name=value)\`. Top-level await works, and so does asyncio.run(main()). Fan out with \`await asyncio.gather(*[mcp__x__y(id=i) for i in ids])\` (no import; at most ${execution.max_tool_calls} calls).
- Checked before it runs (names, arguments, awaits): all mistakes at once, nothing run. None leaves an optional argument out.
- Results are parsed JSON: the structured content if any, else the text as JSON when it parses, else the text. Other text comes in a "_notes" list (else the value is wrapped as {"data": value, "_notes": [...]}); images, audio and embedded resources come in a "_media" list of Media objects (.type, .mime_type, .size, .data base64, .bytes(), .text, .uri). show(media_or_bytes) shows you an image after the output (at most ${MAX_SHOWN_IMAGES} images, ${formatByteLimit(MAX_SHOWN_BYTES)}).
- A failed call raises ToolError (available by name) with .tool, .kind (${TOOL_ERROR_KINDS.filter((kind) => !STATE_KINDS.has(kind)).join(', ')}) and .message; catch it to go on.
- Some calls ask the user first (needs_approval in inspect_tool); a refusal raises ToolError kind "denied", nothing sent: do not retry (its message says how the user can allow it).
- Print only what is needed: output over the limit keeps its start and end (kept whole for the user).
- Helpers, not counted: ${usage('discovery')}.
- Kept for later programs of this session: ${usage('state')} (JSON or Media values), and files left in ./session/. At most ${formatByteLimit(state.max_bytes)}, ${formatByteLimit(state.max_value_bytes)} per value, ${state.max_keys} keys, ${state.max_session_files} files (else ToolError kind max_bytes, max_value_bytes, max_keys).
- A program that worked becomes a tool with save_as="name" (the user is asked); ${usage('programs')} runs a saved one.
First look up names (list_callable_tools) and signatures (inspect_tool).
Limits: ${execution.max_tool_calls} tool calls per program, ${execution.max_concurrent_calls} at once, ${perCall}s per call, ${execution.timeout_seconds}s per program, ${formatByteLimit(execution.max_output_bytes)} of output, ${formatByteLimit(execution.max_tool_result_bytes)} per result.`
}

export const LIST_CALLABLE_TOOLS_DESCRIPTION = `The tools execute_program can call, as a JSON array of names (mcp__<server>__<tool>); unavailable servers are named in a second item. With query (words matched against names, descriptions and parameters): the best ${MAX_SEARCH_RESULTS}, each with the first line of its description. With server: that server's tools only.`

/**
 * list_callable_tools' description for a session: its first line names the servers it reaches,
 * so that Claude Code's tool search (which defers the tool) finds it by a server's name.
 */
export function listCallableToolsDescription(servers: string): string {
  return `Lists the tools of the MCP servers ${servers}, which execute_program programs call.\n${LIST_CALLABLE_TOOLS_DESCRIPTION}`
}

/** inspect_tool's description for a session: its first line names the servers it reaches. */
export function inspectToolDescription(servers: string): string {
  return `Signatures of the tools of the MCP servers ${servers}, for execute_program programs.\n${INSPECT_TOOL_DESCRIPTION}`
}

export const INSPECT_TOOL_DESCRIPTION = `A tool's description, input and output schemas and its Python signature, e.g. "await mcp__fin__query(*, ticker: str, limit: int = 4) -> dict". Without an output schema, observed_result shows the shape of the results seen so far. tool_names (a list, or a glob like mcp__fin__*) inspects several; brief gives only signatures and first lines. needs_approval: the user is asked first.`
