import type {Stream} from 'node:stream'

import {
  type AuthProvider,
  type JSONRPCMessage,
  ReadBuffer,
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
   * Largest single message accepted from a stdio server. The SDK's default (10 MB) is below
   * `max_tool_result_bytes`, and a message over the limit closes the connection, so the caller sizes it.
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
  return createRemoteTransport(server, options.authProvider)
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
  useLinearFraming(transport, options.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE)
  // The PassThrough exists before start(), so early output (a crash at startup) is not lost.
  const {stderr} = transport
  if (stderr)
    forwardLines(stderr, (line) => {
      options.logger.info(line)
      options.onStderrLine?.(line)
    })
  return transport
}

function createRemoteTransport(server: RemoteServerConfig, authProvider?: AuthProvider): Transport {
  const url = new URL(server.url)
  const requestInit = {headers: {...server.headers}}
  if (server.transport === 'sse') return new SSEClientTransport(url, {requestInit, authProvider})
  return new StreamableHTTPClientTransport(url, {
    requestInit,
    authProvider,
    // The supervisor owns reconnecting; the transport only retries its standalone stream briefly.
    reconnectionOptions: {
      initialReconnectionDelay: 500,
      maxReconnectionDelay: 2000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 2,
    },
  })
}

/**
 * Newline framing of stdio messages in linear time, with the SDK's `ReadBuffer` interface and
 * behaviour (lines that are not JSON are skipped, anything else malformed throws, a message over
 * `maxBufferSize` throws and the transport closes).
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
  private readonly lines: string[] = []

  constructor(private readonly maxBufferSize: number = STDIO_DEFAULT_MAX_BUFFER_SIZE) {}

  append(chunk: Buffer): void {
    let start = 0
    let newline = chunk.indexOf(NEWLINE)
    while (newline !== -1) {
      const tail = chunk.subarray(start, newline)
      if (this.pendingBytes === 0) this.lines.push(tail.toString('utf8'))
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
    if (this.pendingBytes + rest.length > this.maxBufferSize) {
      this.clear()
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`)
    }
    this.pending += this.decoder.write(rest)
    this.pendingBytes += rest.length
  }

  readMessage(): JSONRPCMessage | null {
    for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
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
  }
}

const NEWLINE = 0x0a

/** Swaps the transport's read buffer for `LineBuffer`, if the SDK still has the field we expect. */
function useLinearFraming(transport: StdioClientTransport, maxBufferSize: number): void {
  const internals = transport as unknown as {_readBuffer?: unknown}
  if (internals._readBuffer instanceof ReadBuffer) internals._readBuffer = new LineBuffer(maxBufferSize)
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
    onLine(line.length > MAX_STDERR_LINE ? `${line.slice(0, MAX_STDERR_LINE)}... (truncated)` : line)
  }
}
