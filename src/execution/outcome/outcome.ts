import type {ExecutionConfig, StateConfig} from '../../config/schema.js'
import type {ChildEnd} from '../child/index.js'
import type {KeptFile, KeptFiles} from '../files/kept-files.js'
import type {ShownImage} from '../protocol/protocol.js'
import type {StateChange} from '../state/program-state.js'
import type {ToolCallTrace} from './trace.js'

import {PtcError} from '../../shared/errors.js'
import {stateTraceLines} from '../state/program-state.js'
import {outcomeTextParts, type OutcomeTextParts} from './format.js'

/** What `execute_program` returns: `text` is SPEC §8, the rest its structured content. */
export interface RunOutcome {
  ok: boolean
  /** Captured stdout + stderr; over max_output_bytes, its head and tail around `... [N bytes omitted]`. */
  output: string
  /** The last emit() value; null when emit() was not called. */
  result: unknown
  /** True when the program called emit() (even with None). */
  hasResult: boolean
  /** Trimmed traceback or limit/sandbox message; null on success. */
  error: string | null
  tool_calls: ToolCallTrace[]
  /** The sandbox tier in force for this run, e.g. "none" or "linux:bwrap+landlock+seccomp". */
  sandbox: string
  /** The text of SPEC §8, and the parts of it structured content carries (SPEC §5). */
  text: string
  status: string
  /** Trace lines (summary, failures), joined; '' when there are none. */
  trace: string
  /** Kept-file lines, joined; '' when there are none. */
  keptFilesText: string
  /** `text` without the program's output: what `run` prints after showing the output live. */
  afterOutput: string
  /** Images the program passed to show() (SPEC §14), returned after the text. */
  images: ShownImage[]
  /** The files kept from ./out/ (SPEC §14), also listed in `text`; returned as resource links. */
  files: KeptFile[]
  /** With `keepShownImages`: where the shown images were written, in order. */
  shownImageFiles?: string[]
}

/** What a run (or a failure to start one) leaves, to be composed for the model. */
export interface OutcomeParts {
  end: ChildEnd
  output: string
  toolCalls: ToolCallTrace[]
  /** Bytes of tool results the program received. */
  resultBytes?: number
  images?: ShownImage[]
  kept?: KeptFiles
  /** What the program changed in the kept state (SPEC §6.2), and its bounds. */
  state?: {change: StateChange; limits: StateConfig}
  shownImageFiles?: string[]
  elapsedMs: number
  sandbox: string
  /** Set when no child could be started: the error text. */
  startFailure?: string
}

/** The outcome the model reads (SPEC §8) and its structured content, from the run's parts. */
export function composeOutcome(
  {
    end,
    output,
    toolCalls,
    resultBytes = 0,
    images = [],
    kept,
    state,
    shownImageFiles,
    elapsedMs,
    sandbox,
    startFailure,
  }: OutcomeParts,
  execution: ExecutionConfig,
): RunOutcome {
  const done = end.kind === 'done' ? end : undefined
  const ok = done?.ok === true
  const error = ok ? null : (startFailure ?? errorText(end, execution))
  const hasResult = ok && done.hasResult
  const result = hasResult ? (done.result ?? null) : null
  const parts = outcomeTextParts({
    ok,
    output,
    error,
    hasResult,
    result,
    toolCalls,
    resultBytes,
    elapsedMs,
    trace: execution.trace,
    keptFiles: kept,
    stateLines: state && stateTraceLines(state.change, state.limits),
  })
  return {
    ok,
    output,
    result,
    hasResult,
    error,
    tool_calls: toolCalls,
    sandbox,
    ...textParts(parts),
    images,
    files: kept?.files ?? [],
    ...(shownImageFiles && {shownImageFiles}),
  }
}

function errorText(end: ChildEnd, execution: ExecutionConfig): string {
  switch (end.kind) {
    case 'cancelled': {
      return 'CancelledError: the program was cancelled by the client'
    }
    case 'crashed': {
      return `RuntimeError: ${end.reason}`
    }
    case 'done': {
      return end.error ?? 'the program failed'
    }
    case 'timeout': {
      return `TimeoutError: Execution exceeded ${execution.timeout_seconds}s limit (execution.timeout_seconds): do less per program, or split the work`
    }
  }
}

export function startFailureText(error: unknown): string {
  if (error instanceof PtcError) {
    const label = error.code === 'PYTHON_NOT_FOUND' ? 'PythonNotFoundError' : 'SandboxError'
    return `${label}: ${error.message}${error.suggestion ? ` (${error.suggestion})` : ''}`
  }
  return `SandboxError: ${error instanceof Error ? error.message : String(error)}`
}

/**
 * The outcome of a program that could not even be handed to an engine (no usable Python, the
 * sandbox unavailable): the same failure shape as any run, with the error and its fix.
 */
export function startFailureOutcome(error: unknown, execution: ExecutionConfig, sandbox: string): RunOutcome {
  const text = startFailureText(error)
  return {
    ok: false,
    output: '',
    result: null,
    hasResult: false,
    error: text,
    tool_calls: [],
    sandbox,
    images: [],
    files: [],
    ...textParts(
      outcomeTextParts({
        ok: false,
        output: '',
        error: text,
        hasResult: false,
        result: null,
        toolCalls: [],
        elapsedMs: 0,
        trace: execution.trace,
      }),
    ),
  }
}

function textParts({afterOutput, files, status, text, trace}: OutcomeTextParts) {
  return {text, status, trace, keptFilesText: files, afterOutput}
}
