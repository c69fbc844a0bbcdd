import type {Stream} from 'node:stream'

import {
  type AuthProvider,
  type JSONRPCMessage,
  ReadBuffer,
  type RequestId,
  SSEClientTransport,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {StringDecoder} from 'node:string_decoder'

import type {RemoteServerConfig, ServerConfig, StdioServerConfig} from '../config/schema.js'
import type {Logger} from '../log.js'

import {parseMessage} from '../json-rpc.js'
import {idOfSkipped, isCallHead, OversizedLine, type SkippedLine} from '../oversized-line.js'
import {terminalSafe} from '../terminal-safe.js'
import {cappedFetch} from './capped-fetch.js'

/**
 * Variables a stdio server inherits from ptc-mcp's environment: enough to find programs, a home, a
 * locale and a temp dir, nothing that could carry a secret. Everything else comes from the server's
 * `env` in the config.
 */
export const SAFE_ENV_KEYS: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'TERM',
  'TZ',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  // Windows needs these for almost any program to start.
  'SYSTEMROOT',
  'SystemRoot',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'SYSTEMDRIVE',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'USERNAME',
  'HOMEDRIVE',
  'HOMEPATH',
]

/** The minimal environment for a stdio server, taken from `source` (default: our own environment). */
export function minimalEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const key of SAFE_ENV_KEYS) {
    const value = source[key]
    // A value starting with "()" is an exported shell function: never pass code along.
    if (value === undefined || value.startsWith('()')) continue
    env[key] = value
  }
  return env
}

export interface TransportOptions {
  /** Receives each stderr line of a stdio server; it is logged with the server name as prefix. */
  logger: Logger
  /**
   * Largest single message accepted from a stdio or streamable HTTP server (default: the SDK's 10 MB). A message over
   * it is skipped, not buffered: a result is answered as an error to its own request (see
   * {@link oversizedMessageBytes}), anything else is logged and dropped; the connection stays.
   */
  maxMessageBytes?: number
  /** Called with every stderr line of a stdio server (after logging), e.g. to keep the last few for error reports. */
  onStderrLine?: (line: string) => void
  /** Bearer tokens for a remote server (OAuth, SPEC §13). */
  authProvider?: AuthProvider
}

/** A transport for one connection attempt to a downstream server. */
export function createTransport(server: ServerConfig, options: TransportOptions): Transport {
  if (isStdio(server)) return createStdioTransport(server, options)
  return createRemoteTransport(server, options)
}

function isStdio(server: ServerConfig): server is StdioServerConfig {
  return server.transport === 'stdio'
}

function createStdioTransport(server: StdioServerConfig, options: TransportOptions): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    // The SDK adds its own short list (HOME, LOGNAME, PATH, SHELL, TERM, USER) underneath: all safe.
    env: {...minimalEnvironment(), ...server.env},
    cwd: server.cwd,
    stderr: 'pipe',
    ...(options.maxMessageBytes === undefined ? {} : {maxBufferSize: options.maxMessageBytes}),
  })
  const limit = options.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE
  useLinearFraming(
    transport,
    new LineBuffer(limit, (line, id) => {
      options.logger.warn(
        `dropped a message of ${line.bytes} bytes from the server, over the ${limit}-byte limit`,
      )
      // A request of the server's gets its answer, so it does not wait for one forever.
      if (id !== undefined) {
        const answer = {
          jsonrpc: '2.0' as const,
          id,
          error: {code: -32_600, message: tooLargeText(line.bytes, limit)},
        }
        transport.send(answer).catch(() => {})
      }
    }),
    options.logger,
  )
  // The PassThrough exists before start(), so early output (a crash at startup) is not lost.
  const {stderr} = transport
  if (stderr)
    forwardLines(stderr, (line) => {
      options.logger.info(line)
      options.onStderrLine?.(line)
    })
  return transport
}

function createRemoteTransport(server: RemoteServerConfig, options: TransportOptions): Transport {
  const {authProvider} = options
  const url = new URL(server.url)
  const requestInit = {headers: {...server.headers}}
  const limit = options.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE
  // The SDK reads a message whole, whatever its size: one over the limit fails its call alone.
  const fetch = cappedFetch(limit, (id, bytes) => oversizedAnswer(id, bytes, limit))
  if (server.transport === 'sse') return new SSEClientTransport(url, {requestInit, authProvider, fetch})
  return new StreamableHTTPClientTransport(url, {
    requestInit,
    authProvider,
    fetch,
    // The supervisor owns reconnecting; the transport only retries its standalone stream briefly.
    reconnectionOptions: {
      initialReconnectionDelay: 500,
      maxReconnectionDelay: 2000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 2,
    },
  })
}

/** JSON-RPC error code of the answer {@link LineBuffer} makes up for a result over the size limit. */
export const OVERSIZED_MESSAGE_CODE = -32_097

/**
 * The size of a result that was skipped for being over the message limit, when `error` is the
 * answer {@link LineBuffer} made up for it; undefined for any other error.
 */
export function oversizedMessageBytes(error: unknown): number | undefined {
  const {code, data} = (error ?? {}) as {code?: unknown; data?: unknown}
  const bytes = (data as {oversizedBytes?: unknown} | undefined)?.oversizedBytes
  return code === OVERSIZED_MESSAGE_CODE && typeof bytes === 'number' ? bytes : undefined
}

function tooLargeText(bytes: number, limit: number): string {
  return `message of ${bytes} bytes is over the ${limit}-byte limit`
}

/** The answer made up for request `id` when its result, `bytes` long, was over `limit` and skipped. */
function oversizedAnswer(id: RequestId, bytes: number, limit: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {code: OVERSIZED_MESSAGE_CODE, message: tooLargeText(bytes, limit), data: {oversizedBytes: bytes}},
  }
}

/**
 * Newline framing of stdio messages in linear time, with the SDK's `ReadBuffer` interface and
 * behaviour (lines that are not JSON are skipped, anything else malformed throws), except for a
 * message over `maxBufferSize`: the SDK's buffer throws and the transport closes, failing every
 * call in flight on the shared connection. Here the line is skipped (counted, not kept, save its
 * two ends), and a result is answered by an error to its own request id
 * ({@link OVERSIZED_MESSAGE_CODE}); anything else over the limit goes to `onDropped`.
 *
 * Why: the SDK's `ReadBuffer` (2.4.0) concatenates the whole pending buffer on every chunk and
 * searches it again from the start, so one large message costs O(size²): a 12 MB tool result took
 * 3 s where the pipe delivers it in 0.5 s, and SPEC §11 wants 16 MiB through in under 1.5 s. This
 * keeps the current line as text decoded chunk by chunk, and joins it once, when its newline arrives.
 * Each chunk is dropped as soon as it is decoded, so a large message is not held as chunks, then as
 * their concatenation, then as its text, all at once: SPEC §11 bounds the server's memory during a
 * 16 MiB result at 4× its size.
 */
export class LineBuffer {
  /** The current line so far, decoded; appended as a rope, flattened once by JSON.parse. */
  private pending = ''
  private pendingBytes = 0
  /** Keeps a character split between two chunks whole. */
  private readonly decoder = new StringDecoder('utf8')
  private readonly lines: (string | SkippedLine)[] = []
  /** Set while skipping the rest of a line over the limit. */
  private skipping: OversizedLine | undefined

  constructor(
    private readonly maxBufferSize: number = STDIO_DEFAULT_MAX_BUFFER_SIZE,
    /** A message over the limit that is not a result (or has no id to answer): `id` is a request's. */
    private readonly onDropped: (line: SkippedLine, id: RequestId | undefined) => void = () => {},
  ) {}

  append(chunk: Buffer): void {
    let start = 0
    let newline = chunk.indexOf(NEWLINE)
    while (newline !== -1) {
      const tail = chunk.subarray(start, newline)
      if (this.skipping || this.pendingBytes + tail.length > this.maxBufferSize) {
        this.skip(tail)
        this.lines.push(this.skipping!.finish())
        this.skipping = undefined
      } else if (this.pendingBytes === 0) this.lines.push(tail.toString('utf8'))
      else {
        this.lines.push(this.pending + this.decoder.end(tail))
        this.pending = ''
        this.pendingBytes = 0
      }
      start = newline + 1
      newline = chunk.indexOf(NEWLINE, start)
    }
    if (start === chunk.length) return
    const rest = chunk.subarray(start)
    if (this.skipping || this.pendingBytes + rest.length > this.maxBufferSize) {
      this.skip(rest)
      return
    }
    this.pending += this.decoder.write(rest)
    this.pendingBytes += rest.length
  }

  /** Counts `part` into the line being skipped, starting to skip (and dropping what is held) if need be. */
  private skip(part: Buffer): void {
    if (!this.skipping) {
      this.skipping = new OversizedLine()
      if (this.pendingBytes > 0) this.skipping.addText(this.pending, this.pendingBytes)
      this.pending = ''
      this.pendingBytes = 0
      this.decoder.end()
    }
    this.skipping.add(part)
  }

  readMessage(): JSONRPCMessage | null {
    for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
      if (typeof line !== 'string') {
        const answer = this.answerSkipped(line)
        if (answer) return answer
        continue
      }
      try {
        return parseMessage(line.endsWith('\r') ? line.slice(0, -1) : line)
      } catch (error) {
        // Same rule as the SDK: a line that is not JSON (a stray print) is skipped.
        if (error instanceof SyntaxError) continue
        throw error
      }
    }
    return null
  }

  clear(): void {
    this.pending = ''
    this.pendingBytes = 0
    this.decoder.end()
    this.lines.length = 0
    this.skipping = undefined
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

const NEWLINE = 0x0a

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

/** The pid of a started stdio server, for tests and diagnostics. */
export function transportPid(transport: Transport): number | null {
  return transport instanceof StdioClientTransport ? transport.pid : null
}

const MAX_STDERR_LINE = 4096

function forwardLines(stream: Stream, onLine: (line: string) => void): void {
  let pending = ''
  // Decodes across chunk boundaries, so a multi-byte character split between chunks survives.
  const decoder = new StringDecoder('utf8')
  stream.on('data', (chunk: string | Buffer) => {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk)
    let newline = pending.indexOf('\n')
    while (newline !== -1) {
      emit(pending.slice(0, newline))
      pending = pending.slice(newline + 1)
      newline = pending.indexOf('\n')
    }
    // A server that writes megabytes without a newline must not grow this buffer forever.
    if (pending.length > MAX_STDERR_LINE) {
      emit(pending)
      pending = ''
    }
  })
  stream.on('end', () => {
    pending += decoder.end()
    if (pending) emit(pending)
    pending = ''
  })
  // Errors on a stderr pipe are not ours to handle; the connection's own close reports the loss.
  stream.on('error', () => {})

  function emit(raw: string): void {
    const line = raw.replace(/\r$/, '')
    if (line.trim() === '') return
    const kept = line.length > MAX_STDERR_LINE ? `${line.slice(0, MAX_STDERR_LINE)}... (truncated)` : line
    // The line reaches a terminal (the log of a CLI command) and the model (a failure's reason):
    // the server's escape sequences are shown, not obeyed.
    onLine(terminalSafe(kept))
  }
}
