import type {ToolCallTrace} from './format.js'
import type {RunOutcome} from './outcome.js'

import {shortenJson} from '../shared/shorten-json.js'
import {boundedCall, traceError, traceTool} from './trace.js'

/**
 * What the structured content of execute_program may add to the text it carries (SPEC §5): Claude
 * Code shows the model this JSON, not the text, for a successful call.
 */
export const STRUCTURE_ALLOWANCE_BYTES = 600
/** Failed calls listed with their arguments (SPEC §5); the text lists as many. */
export const MAX_STRUCTURED_FAILURES = 5
/** A failed call's arguments and error in structured content: the text's trace has the error whole. */
const FAILED_ARGS_CHARS = 80
const FAILED_ERROR_CHARS = 120
/** Tools counted one by one; the rest are summed under OTHER_TOOLS. */
const OTHER_TOOLS = '(other tools)'

export interface CallCount {
  calls: number
  failed: number
}

export interface FailedCall {
  tool: string
  args: Record<string, unknown>
  error: string
  ms: number
  approval?: 'approved' | 'denied'
}

export interface StructuredToolCalls {
  /** Calls and failures per tool, most called first. */
  counts: Record<string, CallCount>
  /** The first failed calls, with short arguments. */
  failed: FailedCall[]
  /** Every call, with execution.trace: full (and in `run --json`). */
  calls?: ToolCallTrace[]
}

/** The structured content of execute_program, and what `run --json` prints (SPEC §5). */
export interface StructuredOutcome {
  ok: boolean
  /** The status line of the text. */
  status: string
  output: string
  result: unknown
  error: string | null
  /** The kept-file lines of the text, when files were kept. */
  files?: string
  /** The trace lines of the text (summary and failures); '' when there are none. */
  trace: string
  tool_calls: StructuredToolCalls
  sandbox: string
}

/**
 * The outcome as structured content: the text's parts and a trace of calls that fits in
 * STRUCTURE_ALLOWANCE_BYTES beyond the text (JSON escaping of the output aside). With `allCalls`,
 * every call is listed too, beyond that bound (the user asked for it).
 */
export function structuredOutcome(outcome: RunOutcome, {allCalls = false} = {}): StructuredOutcome {
  const empty: StructuredToolCalls = {counts: {}, failed: []}
  const structured: StructuredOutcome = {
    ok: outcome.ok,
    status: outcome.status,
    output: outcome.output,
    result: outcome.result ?? null,
    error: outcome.error,
    ...(outcome.keptFilesText !== '' && {files: outcome.keptFilesText}),
    trace: outcome.trace,
    tool_calls: empty,
    sandbox: outcome.sandbox,
  }
  const escaping = bytes(JSON.stringify(outcome.output)) - bytes(outcome.output)
  const room =
    bytes(outcome.text) +
    STRUCTURE_ALLOWANCE_BYTES +
    escaping -
    (bytes(JSON.stringify(structured)) - bytes(JSON.stringify(empty)))
  structured.tool_calls = fittedCalls(outcome.tool_calls, room)
  if (allCalls) structured.tool_calls.calls = outcome.tool_calls.map((call) => boundedCall(call))
  return structured
}

/** Counts per tool, then failed calls, as many as fit in `room` bytes of JSON. */
function fittedCalls(calls: readonly ToolCallTrace[], room: number): StructuredToolCalls {
  const fitted: StructuredToolCalls = {counts: {}, failed: []}
  const fits = () => bytes(JSON.stringify(fitted)) <= room
  const counts = countsByTool(calls)
  const other: CallCount = {calls: 0, failed: 0}
  const otherBytes = bytes(JSON.stringify({[OTHER_TOOLS]: {calls: calls.length, failed: calls.length}}))
  for (const [index, [tool, count]] of counts.entries()) {
    fitted.counts[tool] = count
    const last = index === counts.length - 1
    if (bytes(JSON.stringify(fitted)) + (last ? 0 : otherBytes) > room) {
      delete fitted.counts[tool]
      for (const [, rest] of counts.slice(index)) {
        other.calls += rest.calls
        other.failed += rest.failed
      }
      fitted.counts[OTHER_TOOLS] = other
      break
    }
  }
  for (const call of calls) {
    if (fitted.failed.length === MAX_STRUCTURED_FAILURES) break
    if (call.ok) continue
    fitted.failed.push(failedCall(call))
    if (!fits()) {
      fitted.failed.pop()
      break
    }
  }
  return fitted
}

function countsByTool(calls: readonly ToolCallTrace[]): Array<[string, CallCount]> {
  const counts = new Map<string, CallCount>()
  for (const call of calls) {
    const tool = traceTool(call.tool)
    let count = counts.get(tool)
    if (!count) {
      count = {calls: 0, failed: 0}
      counts.set(tool, count)
    }
    count.calls++
    if (!call.ok) count.failed++
  }
  return [...counts.entries()].sort(([, a], [, b]) => b.calls - a.calls)
}

function failedCall(call: ToolCallTrace): FailedCall {
  const args = shortenJson(call.args, FAILED_ARGS_CHARS)
  return {
    tool: traceTool(call.tool),
    args: (typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {'…': args}) as Record<
      string,
      unknown
    >,
    error: traceError(call.error ?? 'failed', FAILED_ERROR_CHARS),
    ms: call.ms,
    ...(call.approval !== undefined && {approval: call.approval}),
  }
}

function bytes(text: string): number {
  return Buffer.byteLength(text)
}
