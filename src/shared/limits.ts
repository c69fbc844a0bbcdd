/**
 * The bounds (SPEC §15) in one place, below the config: the schema takes its defaults and ceilings
 * from here. How large one message may be on each channel the server reads is derived here and only
 * here from the execution config: a message over its bound is refused, never buffered whole.
 */

const MiB = 1024 * 1024

/** Ceiling for one tool result (and one stored value): what the child channel carries in one message. */
export const MAX_TOOL_RESULT_CEILING = 64 * MiB

/** `execution.max_tool_result_bytes` when the config does not set it. */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 16 * MiB

/** `execution.max_scratch_bytes` when the config does not set it. */
export const DEFAULT_MAX_SCRATCH_BYTES = 256 * MiB

/** Most files and bytes a run keeps from ./out/ (SPEC §14; runner/kept_files.py has the same). */
export const MAX_KEPT_FILES = 64
export const MAX_KEPT_BYTES = 64 * MiB

/**
 * The `state:` section's defaults (SPEC §6.2): what one session (one serve process, one `run`) keeps
 * between programs, values and ./session/ files together.
 */
export const STATE_DEFAULTS = {
  /** Bytes per session: stored values (as JSON) and ./session/ files, all told. */
  max_bytes: 64 * MiB,
  /** Bytes of one stored value, as JSON. */
  max_value_bytes: 16 * MiB,
  /** Keys stored at once. */
  max_keys: 1000,
  /** Files under ./session/ kept between programs. */
  max_session_files: 256,
} as const

/** Longest key of a stored value, in characters. */
export const MAX_STATE_KEY_CHARS = 256

/**
 * Deepest nesting of a stored value. Below the channel's own bound (protocol.ts MAX_JSON_DEPTH),
 * so a value refused here is refused with a ToolError naming it, not by the framing.
 */
export const MAX_STATE_DEPTH = 64

/** The execution settings the message bounds follow (config/schema.ts ExecutionConfig). */
interface MessageConfig {
  max_output_bytes: number
  max_tool_result_bytes: number
  /** state.max_value_bytes: a store() message carries one value. */
  max_value_bytes?: number
}

/** Bytes of image a program may pass to show(), all told (SPEC §14). */
export const MAX_SHOWN_BYTES = 4 * MiB

/** Bytes of a kept ./out/ file in one `file_data` message (runner/kept_files.py CHUNK_BYTES). */
export const MAX_FILE_CHUNK_BYTES = MiB

/** Characters of base64 that carry `bytes`. */
export function base64Chars(bytes: number): number {
  return Math.ceil(bytes / 3) * 4
}

/** Room in one child message for the traceback and framing around the largest payload. */
const CHILD_MESSAGE_MARGIN_BYTES = 256 * 1024

/**
 * A line from a program's child: a call's arguments (max_tool_result_bytes), the emit() value
 * (max_output_bytes), a show() image or a chunk of a kept file as base64, a stored value
 * (state.max_value_bytes), with room around it. Also the bound on answers
 * waiting for the child to read them, and on its calls waiting to be sent.
 */
export function childMessageBytes(execution: MessageConfig): number {
  const payload = Math.max(
    execution.max_tool_result_bytes,
    execution.max_output_bytes,
    base64Chars(MAX_SHOWN_BYTES),
    base64Chars(MAX_FILE_CHUNK_BYTES),
    execution.max_value_bytes ?? 0,
  )
  return payload + CHILD_MESSAGE_MARGIN_BYTES
}

/** The SDK's own bound on a stdio message (`STDIO_DEFAULT_MAX_BUFFER_SIZE`): never less than that. */
const SDK_STDIO_MESSAGE_BYTES = 10 * MiB

/**
 * A message from a downstream server: a result of max_tool_result_bytes, which may come twice (as
 * text and as structuredContent), with its JSON-RPC around it.
 */
export function downstreamMessageBytes(execution?: Partial<MessageConfig>): number {
  const result = execution?.max_tool_result_bytes ?? DEFAULT_MAX_TOOL_RESULT_BYTES
  return Math.max(SDK_STDIO_MESSAGE_BYTES, 2 * result + MiB)
}

/** A message from the MCP client: a program, up to the largest tool result there can be. */
export const CLIENT_MESSAGE_BYTES = MAX_TOOL_RESULT_CEILING
