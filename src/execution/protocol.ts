import type {ToolErrorKind} from '../downstream/types.js'

import {isRecord} from '../guards.js'

/**
 * The private channel between the engine and a program child (fd 3 of the child): newline-delimited
 * JSON, one object per line. runner.py's docstring lists the same messages from the child's side.
 *
 * Everything the child sends is untrusted: `parseChildMessage` accepts only the shapes below, and
 * `LineSplitter` refuses lines over a bound, so a hostile or broken child ends its own run, never
 * the server.
 */

/** Rlimits the child sets on itself before confinement; soft = hard. */
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

/** Hands the program over. */
export interface RunMessage {
  type: 'run'
  code: string
  /** Namespaced names bound as async functions in the program's globals. */
  tools: string[]
  /** Largest emit() value, as JSON (UTF-8 bytes). */
  max_emit_bytes: number
  /** Largest call message; bigger arguments raise ToolError in the program before sending. */
  max_call_bytes: number
  /** Written by the runner to fd 1 after its final flush: the parent then knows the output is complete. */
  end_marker: string
}

/**
 * Answers a call or helper. A `value` that is a `JsonText` (a tool's lone text item) travels as the
 * line `{"text_bytes":L,"type":"result","id":N,"ok":true}`, then the L bytes of the text and a
 * newline: the child parses it (JSON if it parses, else the string).
 */
export type ResultMessage =
  | {type: 'result'; id: number; ok: true; value: unknown}
  | {type: 'result'; id: number; ok: false; error: string; kind?: ToolErrorKind}

export const HELPER_NAMES = ['list_callable_tools', 'inspect_tool', 'server_status'] as const
export type HelperName = (typeof HELPER_NAMES)[number]

export type ChildMessage =
  | {type: 'ready'; confine: unknown}
  | {type: 'startup_failed'; stage: string; error: string}
  | {type: 'call'; id: number; tool: string; args: Record<string, unknown>}
  | {type: 'helper'; id: number; name: HelperName; args: Record<string, unknown>}
  | {type: 'cancel'; id: number}
  | {type: 'done'; ok: boolean; error: string | null; hasResult: boolean; result: unknown}

/** The child broke the protocol: malformed, oversized or unexpected message. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProtocolError'
  }
}

const NEWLINE = 10

/** Splits a byte stream into lines, refusing any line longer than `maxLineBytes`. */
export class LineSplitter {
  private parts: Buffer[] = []
  private size = 0

  constructor(private readonly maxLineBytes: number) {}

  /** Calls `onLine` for every complete line in `chunk`. Throws ProtocolError on an oversized line. */
  push(chunk: Buffer, onLine: (line: Buffer) => void): void {
    let start = 0
    let newline = chunk.indexOf(NEWLINE)
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline)
      const length = this.size + piece.length
      this.checkSize(length)
      const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece], length)
      this.parts = []
      this.size = 0
      onLine(line)
      start = newline + 1
      newline = chunk.indexOf(NEWLINE, start)
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start)
      this.checkSize(this.size + rest.length)
      this.parts.push(rest)
      this.size += rest.length
    }
  }

  private checkSize(length: number): void {
    if (length > this.maxLineBytes) {
      throw new ProtocolError(`the child sent a message over ${this.maxLineBytes} bytes`)
    }
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

/** Parses and validates one line from the child. Throws ProtocolError. */
export function parseChildMessage(line: Buffer): ChildMessage {
  let message: unknown
  try {
    message = JSON.parse(line.toString('utf8'))
  } catch {
    throw new ProtocolError('the child sent a line that is not JSON')
  }
  if (!isRecord(message)) throw new ProtocolError('the child sent a message that is not a JSON object')
  switch (message.type) {
    case 'call': {
      if (typeof message.tool !== 'string') throw new ProtocolError('"call" message without a tool name')
      return {type: 'call', id: requestId(message), tool: message.tool, args: argsOf(message)}
    }
    case 'cancel': {
      return {type: 'cancel', id: requestId(message)}
    }
    case 'done': {
      const {ok, error} = message
      if (typeof ok !== 'boolean' || !(error === null || typeof error === 'string')) {
        throw new ProtocolError('malformed "done" message')
      }
      return {type: 'done', ok, error, hasResult: message.has_result === true, result: message.result}
    }
    case 'helper': {
      const name = HELPER_NAMES.find((helper) => helper === message.name)
      if (!name) throw new ProtocolError(`unknown helper ${JSON.stringify(message.name)}`)
      return {type: 'helper', id: requestId(message), name, args: argsOf(message)}
    }
    case 'ready': {
      return {type: 'ready', confine: message.confine}
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
