import type {ToolCallTrace} from './format.js'

import {isRecord} from '../guards.js'
import {shortenJson} from '../shorten-json.js'

/** Each call's `args` in the trace, as JSON text, at most this long (SPEC §5). */
export const MAX_TRACE_ARGS_CHARS = 200
/** Each failed call's `error` in the trace, at most this long. */
export const MAX_TRACE_ERROR_CHARS = 300
/** Each call's tool name in the trace, at most this long: a forged one can be any size (SPEC §15). */
export const MAX_TRACE_TOOL_CHARS = 200
/** Calls listed one by one in structured content; the rest are counted per tool (SPEC §5). */
export const MAX_TRACED_CALLS = 50
/** Tools counted one by one after the listed calls; the rest are summed under OTHER_TOOLS. */
const MAX_COUNTED_TOOLS = 50
const OTHER_TOOLS = '(other tools)'

/**
 * A call's arguments as the trace keeps them: the same object when its JSON is at most
 * MAX_TRACE_ARGS_CHARS, else a shortened copy (long strings cut in `…`, counts of what was left out).
 * Cut when recorded, so the server never holds a program's arguments beyond the call itself.
 */
export function traceArgs(args: Record<string, unknown>): Record<string, unknown> {
  const short = shortenJson(args, MAX_TRACE_ARGS_CHARS)
  if (short === args) return args
  // Its strings are slices of the program's: a copy of the few characters lets the whole go.
  const copy = structuredClone(short)
  return isRecord(copy) ? copy : {'…': copy}
}

/** An error message as the trace keeps it: one line of at most MAX_TRACE_ERROR_CHARS. */
export function traceError(message: string): string {
  const flat = message
    .slice(0, 4 * MAX_TRACE_ERROR_CHARS)
    .replaceAll(/\s*\n\s*/g, ' ')
    .trim()
  if (flat.length <= MAX_TRACE_ERROR_CHARS && message.length <= 4 * MAX_TRACE_ERROR_CHARS) return flat
  return ownCopy(`${flat.slice(0, MAX_TRACE_ERROR_CHARS - 1)}…`)
}

/** A tool name as the trace keeps it: at most MAX_TRACE_TOOL_CHARS. */
export function traceTool(name: string): string {
  return name.length <= MAX_TRACE_TOOL_CHARS ? name : ownCopy(`${name.slice(0, MAX_TRACE_TOOL_CHARS - 1)}…`)
}

/**
 * A string of its own: V8 keeps a slice of a string as a view of the whole, so a short cut of a
 * 15 MB argument would hold all 15 MB for as long as the trace lives.
 */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le')
}

/** Calls not listed in `tool_calls`, counted by tool, most called first. */
export interface ToolCallCount {
  tool: string
  calls: number
  failed: number
}

/**
 * The trace as structured content carries it (SPEC §5): the first MAX_TRACED_CALLS calls, each
 * with its args and error cut, then the others counted per tool.
 */
export function boundedTrace(calls: readonly ToolCallTrace[]): {
  tool_calls: ToolCallTrace[]
  more_tool_calls?: ToolCallCount[]
} {
  const listed = calls.slice(0, MAX_TRACED_CALLS).map((call) => {
    const bounded: ToolCallTrace = {tool: call.tool, args: traceArgs(call.args), ok: call.ok, ms: call.ms}
    if (call.error !== undefined) bounded.error = traceError(call.error)
    if (call.approval !== undefined) bounded.approval = call.approval
    return bounded
  })
  if (calls.length <= MAX_TRACED_CALLS) return {tool_calls: listed}
  const counts = new Map<string, ToolCallCount>()
  for (const call of calls.slice(MAX_TRACED_CALLS)) {
    let count = counts.get(call.tool)
    if (!count) {
      count = {tool: call.tool, calls: 0, failed: 0}
      counts.set(call.tool, count)
    }
    count.calls++
    if (!call.ok) count.failed++
  }
  const sorted = [...counts.values()].sort((a, b) => b.calls - a.calls)
  if (sorted.length > MAX_COUNTED_TOOLS) {
    const other = {tool: OTHER_TOOLS, calls: 0, failed: 0}
    for (const count of sorted.splice(MAX_COUNTED_TOOLS - 1)) {
      other.calls += count.calls
      other.failed += count.failed
    }
    sorted.push(other)
  }
  return {tool_calls: listed, more_tool_calls: sorted}
}
