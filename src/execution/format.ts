import {formatTraceBytes} from '../shared/byte-size.js'
import {type KeptFiles, keptFilesLines} from './kept-files.js'
import {traceError} from './trace.js'

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

export interface OutcomeSummary {
  ok: boolean
  output: string
  error: string | null
  /** True when the program called emit() (even with None). */
  hasResult: boolean
  result: unknown
  toolCalls: readonly ToolCallTrace[]
  /** Bytes of tool results the program received; what it did not print was kept out of the context. */
  resultBytes?: number
  /** Wall time of the program, from hand-over to its end. */
  elapsedMs: number
  /** The files kept from ./out/ (SPEC §14), listed after the output. */
  keptFiles?: KeptFiles
  /** What the program stored or changed in its session (SPEC §6.2), as trace lines. */
  stateLines?: string[]
  trace: TraceSetting
}

/** execution.trace: `full` also lists every call in structured content (SPEC §5). */
export type TraceSetting = 'full' | 'off' | 'summary'

export const SUCCESS_HEADER = '[Script executed successfully]'
export const FAILURE_HEADER = '[Script execution failed]'
export const NO_OUTPUT = '(no output)'
export const RESULT_SEPARATOR = '--- result ---'
export const OUTPUT_BEFORE_ERROR = '--- output before the error ---'
/** Failed calls listed one per line in the trace summary; the rest are counted. */
export const MAX_LISTED_FAILURES = 5
/** Below this, what the program kept out of the context is not worth a mention. */
const MIN_KEPT_OUT_SHOWN = 1024

/** The text's parts, as structured content also carries them (SPEC §5). */
export interface OutcomeTextParts {
  /** The status line: SUCCESS_HEADER or FAILURE_HEADER. */
  status: string
  /** The kept-files lines, joined; '' when there are none. */
  files: string
  /** The trace lines (summary and failures), joined; '' when none are shown. */
  trace: string
  /** The whole text (SPEC §8). */
  text: string
  /** The text without the program's output, for a reader who saw the output as it came (`run` on a terminal). */
  afterOutput: string
}

/** The text `execute_program` returns and `run` prints (SPEC §8). */
export function formatOutcome(summary: OutcomeSummary): string {
  return outcomeTextParts(summary).text
}

/** The text of SPEC §8 and its parts. */
export function outcomeTextParts(summary: OutcomeSummary): OutcomeTextParts {
  const status = summary.ok ? SUCCESS_HEADER : FAILURE_HEADER
  const lines: string[] = [status]
  const afterOutput: string[] = [status]
  const output = withoutFinalNewline(summary.output)
  if (summary.ok) {
    lines.push(output === '' ? NO_OUTPUT : output)
    if (summary.hasResult) {
      const result = [RESULT_SEPARATOR, JSON.stringify(summary.result ?? null, null, 2)]
      lines.push(...result)
      afterOutput.push(...result)
    }
  } else {
    lines.push(summary.error ?? 'unknown error')
    afterOutput.push(summary.error ?? 'unknown error')
    if (output !== '') lines.push(OUTPUT_BEFORE_ERROR, output)
  }
  const files = summary.keptFiles ? keptFilesLines(summary.keptFiles) : []
  let trace: string[] = []
  if (summary.trace !== 'off') {
    const keptOut = Math.max(0, (summary.resultBytes ?? 0) - Buffer.byteLength(summary.output))
    trace = [...traceLines(summary.toolCalls, summary.elapsedMs, keptOut), ...(summary.stateLines ?? [])]
  }
  return {
    status,
    files: files.join('\n'),
    trace: trace.join('\n'),
    text: [...lines, ...files, ...trace].join('\n'),
    afterOutput: [...afterOutput, ...files, ...trace].join('\n'),
  }
}

/**
 * `[tool calls: 12, 1 failed; 2.3s; 48.1 KB kept out of context]` and up to five
 * `  failed: tool: error` lines; none without calls.
 */
export function traceLines(calls: readonly ToolCallTrace[], elapsedMs: number, keptOutBytes = 0): string[] {
  if (calls.length === 0) return []
  const failed = calls.filter((call) => !call.ok)
  const seconds = `${(elapsedMs / 1000).toFixed(1)}s`
  const lines = [
    `[tool calls: ${calls.length}${failed.length > 0 ? `, ${failed.length} failed` : ''}; ${seconds}${keptOutBytes >= MIN_KEPT_OUT_SHOWN ? `; ${formatTraceBytes(keptOutBytes)} kept out of context` : ''}]`,
  ]
  for (const call of failed.slice(0, MAX_LISTED_FAILURES)) {
    lines.push(`  failed: ${call.tool}: ${traceError(call.error ?? 'failed')}`)
  }
  if (failed.length > MAX_LISTED_FAILURES)
    lines.push(`  ... ${failed.length - MAX_LISTED_FAILURES} more failures`)
  return lines
}

function withoutFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text
}
