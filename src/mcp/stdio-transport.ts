import type {Readable, Writable} from 'node:stream'

import {type JSONRPCMessage, ProtocolErrorCode, type RequestId} from '@modelcontextprotocol/server'
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'

import type {Logger} from '../log.js'

import {isRecord} from '../guards.js'
import {parseMessage} from '../json-rpc.js'
import {idOfSkipped, OversizedLine, requestId, type SkippedLine} from '../oversized-line.js'

type Line = {kind: 'line'; text: string} | (SkippedLine & {kind: 'oversized'})

/**
 * Splits stdin into lines in linear time. A line over `maxLineBytes` is not buffered: its bytes are
 * counted and dropped, and only its first and last few KiB are kept, so the request can still be
 * answered by id.
 */
export class LineFramer {
  private chunks: Buffer[] = []
  private pendingBytes = 0
  /** Set while skipping the rest of an oversized line. */
  private oversized: OversizedLine | undefined

  constructor(private readonly maxLineBytes: number) {}

  /** Feeds a chunk; returns the lines it completed, in order. */
  push(chunk: Buffer): Line[] {
    const lines: Line[] = []
    let start = 0
    let newline = chunk.indexOf(0x0a)
    while (newline !== -1) {
      lines.push(this.take(chunk.subarray(start, newline)))
      start = newline + 1
      newline = chunk.indexOf(0x0a, start)
    }
    if (start < chunk.length) this.keep(chunk.subarray(start))
    return lines
  }

  private keep(part: Buffer): void {
    if (this.oversized) {
      this.oversized.add(part)
      return
    }
    if (this.pendingBytes + part.length <= this.maxLineBytes) {
      // Copied: the stream may reuse the chunk's memory.
      this.chunks.push(Buffer.from(part))
      this.pendingBytes += part.length
      return
    }
    this.oversized = new OversizedLine()
    for (const kept of this.chunks) this.oversized.add(kept)
    this.oversized.add(part)
    this.chunks = []
    this.pendingBytes = 0
  }

  private take(end: Buffer): Line {
    if (this.oversized || this.pendingBytes + end.length > this.maxLineBytes) {
      this.keep(end)
      const skipped = this.oversized!.finish()
      this.oversized = undefined
      return {kind: 'oversized', ...skipped}
    }
    const line = this.chunks.length === 0 ? end : Buffer.concat([...this.chunks, end])
    this.chunks = []
    this.pendingBytes = 0
    const text = line.toString('utf8')
    return {kind: 'line', text: text.endsWith('\r') ? text.slice(0, -1) : text}
  }
}

/**
 * The SDK's stdio server transport with the input side made robust (the output side, including
 * its handling of a client that hangs up, is the SDK's):
 * - framing in linear time (the SDK's buffer copies everything pending on every chunk: a program
 *   of 20 MB took 25 s to arrive, one of 64 MB never did);
 * - a line over the limit is answered with an error, by id when one can be found, and skipped;
 *   the SDK's buffer closed the transport, leaving the server deaf;
 * - a line that is not JSON is answered with a parse error, and a message that is not JSON-RPC
 *   with an invalid-request error carrying its id, instead of being dropped without an answer
 *   (the client would wait forever for that request).
 */
export class JsonLinesServerTransport extends StdioServerTransport {
  private readonly framer: LineFramer

  constructor(
    stdin: Readable,
    stdout: Writable,
    private readonly options: {maxMessageBytes: number; logger: Logger},
  ) {
    super(stdin, stdout)
    this.framer = new LineFramer(options.maxMessageBytes)
    this._ondata = (chunk: Buffer) => {
      for (const line of this.framer.push(chunk)) this.handleLine(line)
    }
  }

  private handleLine(line: Line): void {
    if (line.kind === 'oversized') {
      const id = idOfSkipped(line)
      this.reject(
        id,
        ProtocolErrorCode.InvalidRequest,
        `message of ${line.bytes} bytes is over the ${this.options.maxMessageBytes}-byte limit; send a shorter program`,
      )
      return
    }
    if (line.text.trim() === '') return
    let message: JSONRPCMessage
    try {
      message = parseMessage(line.text)
    } catch (error) {
      if (error instanceof SyntaxError) {
        this.reject(
          undefined,
          ProtocolErrorCode.ParseError,
          `Parse error: the line is not JSON (${error.message})`,
        )
        return
      }
      const value = parseOrUndefined(line.text)
      const what = `Invalid Request: not a JSON-RPC 2.0 message (${brief(line.text)})`
      // A malformed response from the client is only logged: answering a response makes no sense.
      if (isRecord(value) && !('method' in value) && ('result' in value || 'error' in value))
        this.options.logger.warn(`protocol: ${what}`)
      else this.reject(requestId(value), ProtocolErrorCode.InvalidRequest, what)
      return
    }
    try {
      this.onmessage?.(message)
    } catch (error) {
      this.onerror?.(error as Error)
    }
  }

  /** Answers a message that cannot be handled; without an id the error carries none (MCP allows that). */
  private reject(id: RequestId | undefined, code: number, message: string): void {
    this.options.logger.warn(
      `protocol: ${message}${id === undefined ? '' : ` (request id ${JSON.stringify(id)})`}`,
    )
    const response = {jsonrpc: '2.0', ...(id === undefined ? {} : {id}), error: {code, message}}
    this.send(response as JSONRPCMessage).catch(() => {})
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function brief(text: string): string {
  const flat = text.replaceAll(/\s+/g, ' ')
  return flat.length > 80 ? `${flat.slice(0, 80)}...` : flat
}
