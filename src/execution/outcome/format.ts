import type {ToolCallTrace} from './trace.js'

import {formatTraceBytes} from '../../shared/byte-size.js'
import {shortenJson} from '../../shared/shorten-json.js'
import {type KeptFiles, keptFilesLines} from '../files/kept-files.js'
import {traceError} from './trace.js'

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
/** A failed call's arguments in its trace line, as JSON of at most this many characters. */
export const FAILED_ARGS_CHARS = 80
/** An error already in the output or the error text is not said again: `failed: tool {args} (error above)`. */
export const ERROR_ABOVE = '(error above)'
/** Shorter errors are said again: a few words may be in the output by chance. */
const MIN_ERROR_MATCHED = 16

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
  const files = summary.keptFiles ? keptFilesLines(summary.keptFiles).join('\n') : ''
  let trace: string[] = []
  if (summary.trace !== 'off') {
    const keptOut = Math.max(0, (summary.resultBytes ?? 0) - Buffer.byteLength(summary.output))
    const shown = `${summary.output}\n${summary.error ?? ''}`
    trace = [
      ...traceLines(summary.toolCalls, summary.elapsedMs, keptOut, shown),
      ...(summary.stateLines ?? []),
    ]
  }
  const parts = {status, files, trace: trace.join('\n')}
  const input = {...summary, ...parts}
  return {...parts, text: outcomeText(input), afterOutput: outcomeText(input, false)}
}

/** What the text of SPEC §8 is made of, in its order. */
export interface OutcomeTextInput {
  ok: boolean
  error: string | null
  output: string
  hasResult: boolean
  result: unknown
  /** Kept-file lines, joined; '' when none. */
  files: string
  /** Trace lines, joined; '' when none. */
  trace: string
}

/**
 * The text of SPEC §8 from its parts (status, error or output, result, files, trace); without the
 * output when `withOutput` is false, for a reader who saw it as it came (`run` on a terminal).
 */
export function outcomeText(parts: OutcomeTextInput, withOutput = true): string {
  const lines: string[] = [parts.ok ? SUCCESS_HEADER : FAILURE_HEADER]
  const output = withoutFinalNewline(parts.output)
  if (parts.ok) {
    if (withOutput) lines.push(output === '' ? NO_OUTPUT : output)
    if (parts.hasResult) lines.push(RESULT_SEPARATOR, JSON.stringify(parts.result ?? null, null, 2))
  } else {
    lines.push(parts.error ?? 'unknown error')
    if (withOutput && output !== '') lines.push(OUTPUT_BEFORE_ERROR, output)
  }
  if (parts.files !== '') lines.push(parts.files)
  if (parts.trace !== '') lines.push(parts.trace)
  return lines.join('\n')
}

/**
 * `[tool calls: 12, 1 failed; 2.3s; 48.1 KB kept out of context]` and up to five
 * `  failed: tool {args}: error` lines; none without calls. An error already in `shown` (the
 * output and the error text: the program printed it, or it ended the program) is not said again.
 */
export function traceLines(
  calls: readonly ToolCallTrace[],
  elapsedMs: number,
  keptOutBytes = 0,
  shown = '',
): string[] {
  if (calls.length === 0) return []
  const failed = calls.filter((call) => !call.ok)
  const seconds = `${(elapsedMs / 1000).toFixed(1)}s`
  const lines = [
    `[tool calls: ${calls.length}${failed.length > 0 ? `, ${failed.length} failed` : ''}; ${seconds}${keptOutBytes >= MIN_KEPT_OUT_SHOWN ? `; ${formatTraceBytes(keptOutBytes)} kept out of context` : ''}]`,
  ]
  const flatShown = failed.length > 0 ? shown.replaceAll(/\s*\n\s*/g, ' ') : ''
  for (const call of failed.slice(0, MAX_LISTED_FAILURES)) {
    const error = traceError(call.error ?? 'failed')
    const said = alreadySaid(error, shown, flatShown)
    lines.push(`  failed: ${call.tool}${failedArgs(call.args)}${said ? ` ${ERROR_ABOVE}` : `: ${error}`}`)
  }
  if (failed.length > MAX_LISTED_FAILURES)
    lines.push(`  ... ${failed.length - MAX_LISTED_FAILURES} more failures`)
  return lines
}

/** ` {"path":"/x"}`: a failed call's arguments, short; nothing for none. */
function failedArgs(args: Record<string, unknown>): string {
  if (Object.keys(args).length === 0) return ''
  return ` ${JSON.stringify(shortenJson(args, FAILED_ARGS_CHARS))}`
}

/** The error (as the trace keeps it: one line, maybe cut) is in `shown` already. */
function alreadySaid(error: string, shown: string, flatShown: string): boolean {
  const probe = error.endsWith('…') ? error.slice(0, -1) : error
  if (probe.length < MIN_ERROR_MATCHED) return false
  return shown.includes(probe) || flatShown.includes(probe)
}

function withoutFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text
}
