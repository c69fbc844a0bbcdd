import type {ExecutionConfig} from '../config/schema.js'
import type {Logger} from '../shared/log.js'

import {CHARS_PER_TOKEN} from '../execution/index.js'

/** The user's bound on one MCP answer, in tokens (Claude Code's; serve inherits its environment). */
export const OUTPUT_TOKENS_VARIABLE = 'MAX_MCP_OUTPUT_TOKENS'

/**
 * Room an answer keeps beside the output under the user's limit: the status line, the trace, the
 * notes of a cut, the JSON around it all. What is left is halved: the output is in the text and
 * in the JSON alike.
 */
const ANSWER_ROOM_CHARS = 1500
/** The least output a program keeps under any limit. */
const MIN_OUTPUT_BYTES = 512

const warned = new Set<string>()

/**
 * The user's limit on one answer in characters (4 a token, SPEC §5), from MAX_MCP_OUTPUT_TOKENS;
 * undefined when it is unset, or not a whole number above 0 (then a warning, once per value).
 */
export function userOutputLimit(env: NodeJS.ProcessEnv, logger?: Logger): number | undefined {
  const raw = env[OUTPUT_TOKENS_VARIABLE]
  if (raw === undefined || raw.trim() === '') return undefined
  const tokens = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN
  if (Number.isSafeInteger(tokens) && tokens > 0) return tokens * CHARS_PER_TOKEN
  if (logger && !warned.has(raw)) {
    warned.add(raw)
    logger.warn(
      `${OUTPUT_TOKENS_VARIABLE}=${JSON.stringify(raw.slice(0, 40))} is not a whole number of tokens above 0: ignored (answers are bounded by execution.max_output_bytes alone)`,
    )
  }
  return undefined
}

/**
 * Bounds programs' output (execution.max_output_bytes, which also bounds the emit() value) so
 * that an answer fits the user's limit; the output over it is kept whole in a file, as any
 * output over the cap is (SPEC §8, §14). Nothing changes without a limit.
 */
export function limitOutput(
  execution: ExecutionConfig,
  limitChars: number | undefined,
  logger?: Logger,
): void {
  if (limitChars === undefined) return
  const cap = Math.max(MIN_OUTPUT_BYTES, Math.floor((limitChars - ANSWER_ROOM_CHARS) / 2))
  if (cap >= execution.max_output_bytes) return
  logger?.info(
    `${OUTPUT_TOKENS_VARIABLE} allows ${limitChars} characters an answer: programs' output is cut at ${cap} bytes (execution.max_output_bytes: ${execution.max_output_bytes})`,
  )
  execution.max_output_bytes = cap
}
