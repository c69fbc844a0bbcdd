import type {RunOutcome} from './outcome.js'
import type {ToolCallTrace} from './trace.js'

import {USUAL_SANDBOX_TIERS} from '../../sandbox/index.js'
import {boundedCall} from './trace.js'

/**
 * What the structured content of execute_program may add to the text it carries (SPEC §5): Claude
 * Code shows the model this JSON, not the text, for a successful call.
 */
export const STRUCTURE_ALLOWANCE_BYTES = 600

/**
 * The structured content of execute_program, and what `run --json` prints (SPEC §5): the text's
 * facts in the text's order, each once; a field is left out when it would be empty, null or the
 * usual value.
 */
export interface StructuredOutcome {
  ok: boolean
  /** The error when the run failed (the text's second part). */
  error?: string
  /** What the program printed; left out when nothing was. */
  output?: string
  /** The emit() value, when emit() was called (even with None). */
  result?: unknown
  /** The kept-file lines of the text, when files were kept. */
  files?: string
  /** The trace lines of the text (summary, failures, what was stored), when there are any. */
  trace?: string
  /** Every call, with execution.trace: full (and in `run --json`), when any was made. */
  calls?: ToolCallTrace[]
  /** The sandbox tier, when it is not the usual one (USUAL_SANDBOX_TIERS). */
  sandbox?: string
}

/**
 * The outcome as structured content: the text's parts, nothing repeated, within
 * STRUCTURE_ALLOWANCE_BYTES of the text (JSON escaping aside). With `allCalls`, every call is
 * listed too, beyond that bound (the user asked for it).
 */
export function structuredOutcome(outcome: RunOutcome, {allCalls = false} = {}): StructuredOutcome {
  const calls =
    allCalls && outcome.tool_calls.length > 0 ? outcome.tool_calls.map((call) => boundedCall(call)) : []
  return {
    ok: outcome.ok,
    ...(!outcome.ok && {error: outcome.error ?? 'unknown error'}),
    ...(outcome.output !== '' && {output: outcome.output}),
    ...(outcome.ok && outcome.hasResult && {result: outcome.result ?? null}),
    ...(outcome.keptFilesText !== '' && {files: outcome.keptFilesText}),
    ...(outcome.trace !== '' && {trace: outcome.trace}),
    ...(calls.length > 0 && {calls}),
    ...(unusualSandbox(outcome.sandbox) && {sandbox: outcome.sandbox}),
  }
}

/**
 * A tier worth naming: not the usual one, and known (a run that never started has none, or only
 * the `auto` setting).
 */
function unusualSandbox(tier: string): boolean {
  return tier !== '' && tier !== 'auto' && !USUAL_SANDBOX_TIERS.includes(tier)
}
