import type {ToolErrorKind} from '../../downstream/index.js'
import type {PreflightSpec} from '../calls/preflight-spec.js'

import {isRecord} from '../../shared/guards.js'
import {jsonShapeProblem} from '../../shared/json-shape.js'
import {
  base64Chars,
  MAX_DONE_ERROR_CHARS,
  MAX_FILE_CHUNK_BYTES,
  MAX_PREFLIGHT_NAMES,
  MAX_SHOWN_BYTES,
} from '../../shared/limits.js'
import {HELPER_NAMES, type HelperName} from '../calls/program-helpers.js'
import {imageTypeOf, SHOWN_IMAGE_TYPES, SIGNATURE_BYTES} from './image-types.js'

/**
 * The private channel between the engine and a program child (fd 3 of the child): newline-delimited
 * JSON, one object per line. Its messages and fields are written down in channel-messages.ts; the
 * types and the parser here are checked against it by channel-messages.integration.test.ts.
 *
 * Everything the child sends is untrusted (SPEC §15): the channel's framer refuses lines over a bound,
 * `parseChildMessage` refuses JSON nested too deep or with too many containers before parsing it
 * (so no recursive code later — serialising, validating — can overflow the stack, and a message
 * costs bounded memory once parsed), accepts only the
 * shapes below and caps `done`, so a hostile or broken child ends its own run, never the server.
 */

/** Rlimits the child sets on itself before confinement; soft = hard (the CPU limit's hard one a second above). */
export interface ChildLimits {
  cpu_seconds: number
  address_space_bytes: number
  file_size_bytes: number
  open_files: number
}

/** First line to the child, before it confines itself. */
export interface StartMessage {
  type: 'start'
  confine: Record<string, unknown> | null
  limits: ChildLimits
}

/** The `start` message: what the child confines itself with, and its rlimits. */
export function startMessage(confine: StartMessage['confine'], limits: ChildLimits): StartMessage {
  return {type: 'start', confine, limits}
}

/** Hands the program over. */
export interface RunMessage {
  type: 'run'
  code: string
  /** Namespaced names bound as async functions in the program's globals. */
  tools: string[]
  /** What the preflight check (SPEC §6.1) knows of the tools the program's text names. */
  preflight: PreflightSpec
  /** Largest emit() value, as JSON (UTF-8 bytes). */
  max_emit_bytes: number
  /** Largest call message; bigger arguments raise ToolError in the program before sending. */
  max_call_bytes: number
  /** Written by the runner to fd 1 after its final flush: the parent then knows the output is complete. */
  end_marker: string
  /** The session's bounds (SPEC §6.2): store() refuses a larger value before sending it; ./session/ is sent back within the others. */
  state: RunStateLimits
  /** Present (true) only when serve times steps (PTC_MCP_STEPS=1): `done` then carries the child's. */
  steps?: true
  /** A saved program's arguments (SPEC §17): the runner then awaits `main(**main_args)` and emits what it returns. */
  main_args?: Record<string, unknown>
}

/** The `state:` bounds a program's runner applies itself (the parent checks them again). */
export interface RunStateLimits {
  max_value_bytes: number
  max_bytes: number
  max_session_files: number
}

/** Begins a file of the session's ./session/, sent in before `run` (its data follows in `session_data`). */
export interface SessionFileMessage {
  type: 'session_file'
  name: string
}

/** The next bytes of that file, as base64 of at most MAX_FILE_CHUNK_BYTES. */
export interface SessionDataMessage {
  type: 'session_data'
  data: string
}

/** Which directory of the scratch a `file` or `file_skipped` message is about. */
export type FileArea = 'out' | 'session'

/**
 * Answers a call or helper. A `value` that is a `JsonText` (a tool's lone text item) travels as the
 * line `{"text_bytes":L,"type":"result","id":N,"ok":true}`, then the L bytes of the text and a
 * newline: the child parses it (JSON if it parses, else the string).
 */
export type ResultMessage =
  | {type: 'result'; id: number; ok: true; value: unknown; media?: true}
  | {type: 'result'; id: number; ok: false; error: string; kind?: ToolErrorKind}

/** The header line of a result whose value is a tool's lone text item; the text follows it. */
export interface TextResultHeader {
  text_bytes: number
  type: 'result'
  id: number
  ok: true
}

export type ChildMessage =
  | {type: 'ready'; confine: unknown}
  | {type: 'startup_failed'; stage: string; error: string}
  | {type: 'call'; id: number; tool: string; args: Record<string, unknown>}
  | {type: 'helper'; id: number; name: HelperName; args: Record<string, unknown>}
  | {type: 'cancel'; id: number}
  | {type: 'plan'; calls: PlanEntry[]}
  | {
      type: 'done'
      ok: boolean
      error: string | null
      hasResult: boolean
      result: unknown
      /** The child's timed steps when the run asked for them (shared/steps.ts checks them), else null. */
      steps?: unknown
    }
  | {type: 'show'; image: ShownImage}
  | {type: 'file'; name: string; area: FileArea}
  | {type: 'file_data'; data: Buffer}
  | {type: 'file_skipped'; name: string; reason: FileSkippedReason; area: FileArea}

/** Calls of one tool the program's text shows (runner/preflight.py's plan), before it runs (SPEC §12). */
export interface PlanEntry {
  tool: string
  /** How many calls the text shows, or `many`. */
  times: number | 'many'
  /** A few calls as the program writes them. */
  samples: string[]
}

/** Tools in one plan (the preflight check names at most as many). */
const MAX_PLAN_TOOLS = MAX_PREFLIGHT_NAMES
const MAX_PLAN_SAMPLES = 3
const MAX_PLAN_SAMPLE_CHARS = 200

/** An image a program passed to show(), returned to the client as MCP image content (SPEC §14). */
export interface ShownImage {
  mimeType: string
  /** Base64, checked to decode. */
  data: string
  /** Decoded bytes. */
  bytes: number
}

/** Why the runner did not send an entry of ./out/ (runner/kept_files.py). */
export const FILE_SKIPPED_REASONS = [
  'link',
  'special',
  'depth',
  'files',
  'bytes',
  'name',
  'unreadable',
] as const
export type FileSkippedReason = (typeof FILE_SKIPPED_REASONS)[number]

export type {HelperName} from '../calls/program-helpers.js'

const BASE64 = /^(?:[A-Za-z\d+/]{4})*(?:[A-Za-z\d+/]{2}==|[A-Za-z\d+/]{3}=)?$/

/** The child broke the protocol: malformed, oversized or unexpected message. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProtocolError'
  }
}

/**
 * A call or helper request refused for its size or shape before parsing: only that request fails
 * (a ToolError in the program), the run goes on.
 */
export class RefusedRequest extends ProtocolError {
  constructor(
    readonly id: number,
    message: string,
  ) {
    super(message)
    this.name = 'RefusedRequest'
  }
}

function requestId(message: Record<string, unknown>): number {
  const {id} = message
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) {
    throw new ProtocolError(`"${String(message.type)}" message without a valid id`)
  }
  return id
}

function argsOf(message: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(message.args))
    throw new ProtocolError(`"${String(message.type)}" message without an args object`)
  return message.args
}

const REQUEST_START = /^\{"type":"(?:call|helper)",/
const ID_AT_END = /,"id":([1-9]\d{0,15})\}$/

/**
 * The id of a call or helper request as runner.py writes it (`{"type":"call",...,"id":N}`), read
 * without parsing; undefined for anything else.
 */
function requestIdAtEnd(line: Buffer): number | undefined {
  if (!REQUEST_START.test(line.subarray(0, 32).toString('latin1'))) return undefined
  const id = Number(ID_AT_END.exec(line.subarray(-32).toString('latin1'))?.[1])
  return Number.isSafeInteger(id) ? id : undefined
}

/**
 * Parses and validates one line from the child. Throws ProtocolError. A `done` result whose JSON is
 * over `maxResultBytes` (max_output_bytes: runner.py's emit() refuses such values, so only a forged
 * `done` has one) is refused.
 */
export function parseChildMessage(line: Buffer, maxResultBytes = Infinity): ChildMessage {
  const problem = jsonShapeProblem(line)
  if (problem) {
    const id = requestIdAtEnd(line)
    if (id !== undefined) {
      throw new RefusedRequest(id, `the arguments are refused: they are ${problem}; pass less data per call`)
    }
    throw new ProtocolError(
      `the child sent a message ${problem} (tool arguments and emit() values must be smaller)`,
    )
  }
  let message: unknown
  try {
    message = JSON.parse(line.toString('utf8'))
  } catch {
    throw new ProtocolError('the child sent a line that is not JSON')
  }
  if (!isRecord(message)) throw new ProtocolError('the child sent a message that is not a JSON object')
  return childMessageFrom(message, line.length, maxResultBytes)
}

/** Validates one parsed message from the child (`lineBytes`: its line's length). Throws ProtocolError. */
export function childMessageFrom(
  message: Record<string, unknown>,
  lineBytes: number,
  maxResultBytes = Infinity,
): ChildMessage {
  switch (message.type) {
    case 'call': {
      if (typeof message.tool !== 'string') throw new ProtocolError('"call" message without a tool name')
      return {type: 'call', id: requestId(message), tool: message.tool, args: argsOf(message)}
    }
    case 'cancel': {
      return {type: 'cancel', id: requestId(message)}
    }
    case 'done': {
      return parseDone(message, lineBytes, maxResultBytes)
    }
    case 'plan': {
      return {type: 'plan', calls: parsePlan(message.calls)}
    }
    case 'helper': {
      const name = HELPER_NAMES.find((helper) => helper === message.name)
      if (!name) throw new ProtocolError(`unknown helper ${JSON.stringify(message.name)}`)
      return {type: 'helper', id: requestId(message), name, args: argsOf(message)}
    }
    case 'ready': {
      return {type: 'ready', confine: message.confine}
    }
    case 'show': {
      return {type: 'show', image: parseShownImage(message)}
    }
    case 'file': {
      if (typeof message.name !== 'string') throw new ProtocolError('"file" message without a name')
      return {type: 'file', name: message.name, area: fileArea(message)}
    }
    case 'file_data': {
      return {type: 'file_data', data: fileChunk(message.data)}
    }
    case 'file_skipped': {
      const reason = FILE_SKIPPED_REASONS.find((known) => known === message.reason)
      if (typeof message.name !== 'string' || reason === undefined)
        throw new ProtocolError('malformed "file_skipped" message')
      return {type: 'file_skipped', name: message.name, reason, area: fileArea(message)}
    }
    case 'startup_failed': {
      return {
        type: 'startup_failed',
        stage: String(message.stage),
        error: typeof message.error === 'string' ? message.error : 'unknown error',
      }
    }
    default: {
      throw new ProtocolError(`unknown message type ${JSON.stringify(message.type)}`)
    }
  }
}

/**
 * A `show` message's image: a shown type (image-types.ts) that its bytes' signature confirms, and
 * base64 that decodes, within `MAX_SHOWN_BYTES`.
 */
function parseShownImage(message: Record<string, unknown>): ShownImage {
  const {data, mime_type: mimeType} = message
  if (typeof mimeType !== 'string' || !Object.hasOwn(SHOWN_IMAGE_TYPES, mimeType)) {
    throw new ProtocolError('show() sent without a PNG, JPEG, GIF or WebP MIME type')
  }
  if (typeof data !== 'string' || data.length > base64Chars(MAX_SHOWN_BYTES)) {
    throw new ProtocolError(`show() sent an image over ${MAX_SHOWN_BYTES} bytes`)
  }
  if (!BASE64.test(data)) throw new ProtocolError('show() sent image data that is not base64')
  const bytes = Buffer.byteLength(data, 'base64')
  if (bytes === 0) throw new ProtocolError('show() sent an empty image')
  const found = imageTypeOf(Buffer.from(data.slice(0, base64Chars(SIGNATURE_BYTES)), 'base64'))
  if (found !== mimeType)
    throw new ProtocolError(`show() sent ${found ?? 'bytes of no image type'} labelled ${mimeType}`)
  return {mimeType, data, bytes}
}

/** A `plan` message's calls: a bounded list of tools, counts and short samples. */
function parsePlan(calls: unknown): PlanEntry[] {
  if (!Array.isArray(calls) || calls.length > MAX_PLAN_TOOLS)
    throw new ProtocolError('malformed "plan" message')
  return calls.map((call: unknown) => {
    if (!isRecord(call) || typeof call.tool !== 'string') throw new ProtocolError('malformed "plan" message')
    const {times, samples} = call
    const counted =
      times === 'many' || (typeof times === 'number' && Number.isSafeInteger(times) && times > 0)
    const listed =
      Array.isArray(samples) &&
      samples.length <= MAX_PLAN_SAMPLES &&
      samples.every((sample) => typeof sample === 'string' && sample.length <= MAX_PLAN_SAMPLE_CHARS)
    if (!counted || !listed) throw new ProtocolError('malformed "plan" message')
    return {tool: call.tool, times: times as PlanEntry['times'], samples: samples as string[]}
  })
}

/** The directory a file message is about: out/ unless it says session/. */
function fileArea(message: Record<string, unknown>): FileArea {
  const {area} = message
  if (area === undefined || area === 'out') return 'out'
  if (area === 'session') return 'session'
  throw new ProtocolError(`"${String(message.type)}" message with an unknown area`)
}

/** A `file_data` message's bytes: base64 of at most MAX_FILE_CHUNK_BYTES (limits.ts). */
function fileChunk(data: unknown): Buffer {
  if (typeof data !== 'string') throw new ProtocolError('"file_data" message without data')
  if (data.length > base64Chars(MAX_FILE_CHUNK_BYTES))
    throw new ProtocolError(`file data over ${MAX_FILE_CHUNK_BYTES} bytes in one message`)
  // Node's decoder skips what is not base64: a shorter result is how bad data shows (a regular
  // expression over a megabyte costs several times the decoding).
  const bytes = Buffer.from(data, 'base64')
  const padding = data.endsWith('==') ? 2 : Number(data.endsWith('='))
  if (data.length % 4 !== 0 || bytes.length !== (data.length / 4) * 3 - padding)
    throw new ProtocolError('file data that is not base64')
  return bytes
}

function parseDone(
  message: Record<string, unknown>,
  lineBytes: number,
  maxResultBytes: number,
): Extract<ChildMessage, {type: 'done'}> {
  const {ok, error} = message
  if (typeof ok !== 'boolean' || !(error === null || typeof error === 'string')) {
    throw new ProtocolError('malformed "done" message')
  }
  // Whatever the line holds beyond max_output_bytes, the result's own JSON is what counts.
  if (lineBytes > maxResultBytes) {
    const bytes = Buffer.byteLength(JSON.stringify(message.result) ?? '')
    if (bytes > maxResultBytes) {
      throw new ProtocolError(
        `the child sent a result of ${bytes} bytes, over the ${maxResultBytes}-byte limit (max_output_bytes)`,
      )
    }
  }
  return {
    type: 'done',
    ok,
    error:
      error !== null && error.length > MAX_DONE_ERROR_CHARS
        ? `${error.slice(0, MAX_DONE_ERROR_CHARS)}\n... (cut)`
        : error,
    hasResult: message.has_result === true,
    result: message.result,
    ...(message.steps !== null && message.steps !== undefined && {steps: message.steps}),
  }
}
