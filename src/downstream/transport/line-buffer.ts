import type {StdioClientTransport} from '@modelcontextprotocol/client/stdio'

import {
  type JSONRPCMessage,
  ReadBuffer,
  type RequestId,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from '@modelcontextprotocol/client'

import type {Logger} from '../../shared/log.js'

import {parseMessage} from '../../shared/json-rpc.js'
import {LineFramer} from '../../shared/line-framing.js'
import {idOfSkipped, isCallHead, type SkippedLine} from '../../shared/oversized-line.js'
import {oversizedAnswer} from './oversized-answer.js'

/**
 * Newline framing of stdio messages in linear time, with the SDK's `ReadBuffer` interface and
 * behaviour (lines that are not JSON are skipped, anything else malformed throws), except for a
 * message over `maxBufferSize`: the SDK's buffer throws and the transport closes, failing every
 * call in flight on the shared connection. Here the line is skipped (counted, not kept, save its
 * two ends), and a result is answered by an error to its own request id
 * (`OVERSIZED_MESSAGE_CODE`); anything else over the limit goes to `onDropped`.
 *
 * Why: the SDK's `ReadBuffer` (2.4.0) concatenates the whole pending buffer on every chunk and
 * searches it again from the start, so one large message costs O(size²): a 12 MB tool result took
 * 3 s where the pipe delivers it in 0.5 s, and SPEC §11 wants 16 MiB through in under 1.5 s. The
 * framer keeps the current line as text decoded chunk by chunk, and joins it once, when its newline
 * arrives: SPEC §11 bounds the server's memory during a 16 MiB result at 4× its size.
 */
export class LineBuffer {
  private readonly framer: LineFramer<string>
  private readonly lines: (string | SkippedLine)[] = []

  constructor(
    private readonly maxBufferSize: number = STDIO_DEFAULT_MAX_BUFFER_SIZE,
    /** A message over the limit that is not a result (or has no id to answer): `id` is a request's. */
    private readonly onDropped: (line: SkippedLine, id: RequestId | undefined) => void = () => {},
  ) {
    this.framer = LineFramer.text(maxBufferSize, 'skip')
  }

  append(chunk: Buffer): void {
    this.framer.push(chunk, (framed) => this.lines.push(framed.kind === 'line' ? framed.line : framed))
  }

  readMessage(): JSONRPCMessage | null {
    for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
      if (typeof line !== 'string') {
        const answer = this.answerSkipped(line)
        if (answer) return answer
        continue
      }
      try {
        return parseMessage(line)
      } catch (error) {
        // Same rule as the SDK: a line that is not JSON (a stray print) is skipped.
        if (error instanceof SyntaxError) continue
        throw error
      }
    }
    return null
  }

  clear(): void {
    this.framer.clear()
    this.lines.length = 0
  }

  /** A result over the limit becomes an error answer to its request; anything else is dropped. */
  private answerSkipped(line: SkippedLine): JSONRPCMessage | undefined {
    const id = idOfSkipped(line)
    if (id === undefined || isCallHead(line.head)) {
      this.onDropped(line, id)
      return undefined
    }
    return oversizedAnswer(id, line.bytes, this.maxBufferSize)
  }
}

let warnedFraming = false

/**
 * Swaps the transport's read buffer (the SDK's private `_readBuffer`) for `buffer`, if the SDK still
 * has that field holding a `ReadBuffer`. When it does not (the SDK changed; transports.test.ts fails
 * then), stdio still works with the SDK's own framing and its limits: said once per process.
 */
export function useLinearFraming(
  transport: StdioClientTransport,
  buffer: LineBuffer,
  logger: Logger,
): boolean {
  const internals = transport as unknown as {_readBuffer?: unknown}
  if (internals._readBuffer instanceof ReadBuffer) {
    internals._readBuffer = buffer
    return true
  }
  if (warnedFraming) return false
  warnedFraming = true
  logger.warn(
    "this MCP SDK's stdio transport has no _readBuffer to replace: large messages from stdio servers " +
      'are framed by the SDK (slower, and one over the size limit closes the connection)',
  )
  return false
}
