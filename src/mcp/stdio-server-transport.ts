import type {Readable, Writable} from 'node:stream'

import {
  CLIENT_CAPABILITIES_META_KEY,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type RequestId,
} from '@modelcontextprotocol/server'
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'

import type {Logger} from '../shared/log.js'

import {cutAfter} from '../shared/cut.js'
import {isRecord} from '../shared/guards.js'
import {parseMessage} from '../shared/json-rpc.js'
import {type FramedLine, LineFramer} from '../shared/line-framing.js'
import {idOfSkipped, parseOrUndefined, requestId} from '../shared/oversized-line.js'
import {answerSending, answerSent, requestRead, STEPS_ON} from '../shared/steps.js'

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
  private readonly framer: LineFramer<string>

  constructor(
    stdin: Readable,
    stdout: Writable,
    private readonly options: {
      maxMessageBytes: number
      logger: Logger
      /** Told once, of the first request that carries a 2026-07-28 envelope: the client's capabilities. */
      onModernClient?: (capabilities: unknown) => void
    },
  ) {
    super(stdin, stdout)
    this.framer = LineFramer.text(options.maxMessageBytes, 'skip')
    this._ondata = (chunk: Buffer) => this.framer.push(chunk, (line) => this.handleLine(line))
  }

  private handleLine(framed: FramedLine<string>): void {
    if (framed.kind === 'oversized') {
      const id = idOfSkipped(framed)
      this.reject(
        id,
        ProtocolErrorCode.InvalidRequest,
        `message of ${framed.bytes} bytes is over the ${this.options.maxMessageBytes}-byte limit; send a shorter program`,
      )
      return
    }
    const {line} = framed
    if (line.trim() === '') return
    let message: JSONRPCMessage
    try {
      message = parseMessage(line)
    } catch (error) {
      if (error instanceof SyntaxError) {
        this.reject(
          undefined,
          ProtocolErrorCode.ParseError,
          `Parse error: the line is not JSON (${error.message})`,
        )
        return
      }
      const value = parseOrUndefined(line)
      const what = `Invalid Request: not a JSON-RPC 2.0 message (${brief(line)})`
      // A malformed response from the client is only logged: answering a response makes no sense.
      if (isRecord(value) && !('method' in value) && ('result' in value || 'error' in value))
        this.options.logger.warn(`protocol: ${what}`)
      else this.reject(requestId(value), ProtocolErrorCode.InvalidRequest, what)
      return
    }
    this.noticeModernClient(message)
    if (STEPS_ON && 'id' in message && 'method' in message && message.method === 'tools/call')
      requestRead(message.id)
    try {
      this.onmessage?.(message)
    } catch (error) {
      this.onerror?.(error as Error)
    }
  }

  override async send(...args: Parameters<StdioServerTransport['send']>): Promise<void> {
    const [message] = args
    const answered = STEPS_ON && 'id' in message && message.id !== undefined && !('method' in message)
    if (answered) answerSending(message.id!)
    await super.send(...args)
    if (answered) answerSent(message.id!)
  }

  private noticeModernClient(message: JSONRPCMessage): void {
    const {onModernClient} = this.options
    if (!onModernClient || !('method' in message) || !isRecord(message.params)) return
    const meta = message.params._meta
    if (!isRecord(meta) || meta[PROTOCOL_VERSION_META_KEY] === undefined) return
    this.options.onModernClient = undefined
    onModernClient(meta[CLIENT_CAPABILITIES_META_KEY])
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

function brief(text: string): string {
  const flat = text.replaceAll(/\s+/g, ' ')
  return cutAfter(flat, 80)
}
