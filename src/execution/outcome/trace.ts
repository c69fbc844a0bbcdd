import {cutWithin} from '../../shared/cut.js'
import {isRecord} from '../../shared/guards.js'
import {shortenJson} from '../../shared/shorten-json.js'

/** One tool call of a program, as reported in `tool_calls` (SPEC §5). */
export interface ToolCallTrace {
  tool: string
  args: Record<string, unknown>
  ok: boolean
  /** Duration, rounded to whole milliseconds. */
  ms: number
  error?: string
  /** Set for a call that needed the user's approval (SPEC §12). */
  approval?: 'approved' | 'denied'
}

/** Each call's `args` in the trace, as JSON text, at most this long (SPEC §5). */
export const MAX_TRACE_ARGS_CHARS = 200
/** Each failed call's `error` in the trace, at most this long. */
export const MAX_TRACE_ERROR_CHARS = 300
/** Each call's tool name in the trace, at most this long: a forged one can be any size (SPEC §15). */
export const MAX_TRACE_TOOL_CHARS = 200
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

/** An error message as the trace keeps it: one line of at most `max` (MAX_TRACE_ERROR_CHARS). */
export function traceError(message: string, max = MAX_TRACE_ERROR_CHARS): string {
  const flat = message
    .slice(0, 4 * max)
    .replaceAll(/\s*\n\s*/g, ' ')
    .trim()
  if (flat.length <= max && message.length <= 4 * max) return flat
  return ownCopy(cutWithin(flat, max))
}

/** A tool name as the trace keeps it: at most MAX_TRACE_TOOL_CHARS. */
export function traceTool(name: string): string {
  return name.length <= MAX_TRACE_TOOL_CHARS ? name : ownCopy(cutWithin(name, MAX_TRACE_TOOL_CHARS))
}

/**
 * A string of its own: V8 keeps a slice of a string as a view of the whole, so a short cut of a
 * 15 MB argument would hold all 15 MB for as long as the trace lives.
 */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le')
}

/** A call as the trace lists it: tool, args and error cut as above. */
export function boundedCall(call: ToolCallTrace): ToolCallTrace {
  const bounded: ToolCallTrace = {
    tool: traceTool(call.tool),
    args: traceArgs(call.args),
    ok: call.ok,
    ms: call.ms,
  }
  if (call.error !== undefined) bounded.error = traceError(call.error)
  if (call.approval !== undefined) bounded.approval = call.approval
  return bounded
}
