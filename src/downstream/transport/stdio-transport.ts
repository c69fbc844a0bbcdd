import type {Stream} from 'node:stream'

import {
  SdkError,
  SdkErrorCode,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'

import type {StdioServerConfig} from '../../config/schema.js'
import type {FailureCause} from '../connection/failure-cause.js'
import type {ServerTransport, TransportOptions} from './server-transport.js'

import {MAX_STDERR_LINE_BYTES} from '../../shared/limits.js'
import {type FramedLine, LineFramer} from '../../shared/line-framing.js'
import {terminalSafe} from '../../shared/terminal-safe.js'
import {describeError, withStderr} from '../connection/error-text.js'
import {LineBuffer, useLinearFraming} from './line-buffer.js'
import {tooLargeText} from './oversized-answer.js'

/** A stderr line older than this when a connection drops is not taken as the reason. */
const STDERR_RECENT_MS = 10_000

/**
 * A server run as a child process, spoken to over its stdin and stdout: its exit closes the
 * connection, and what it wrote to stderr says why.
 */
export function stdioTransport(server: StdioServerConfig): ServerTransport {
  return {
    create: (options) => createStdioTransport(server, options),
    failureCause: (error) => stdioFailureCause(error, server),
    closedReason: (stderr) =>
      withStderr('server process exited', stderr.reason(Date.now() - STDERR_RECENT_MS)),
    pingsOnError: false,
  }
}

function stdioFailureCause(error: unknown, server: StdioServerConfig): FailureCause {
  const code = (error as {code?: unknown} | null)?.code
  if (code === 'ENOENT') return {kind: 'command_not_found', message: `command not found: ${server.command}`}
  if (code === 'EACCES') return {kind: 'not_executable', message: `command not executable: ${server.command}`}
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
    return {kind: 'exited', message: 'server process exited during startup'}
  return {kind: 'other', message: describeError(error)}
}

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

/** The pid of a started stdio server, for tests and diagnostics. */
export function transportPid(transport: Transport): number | null {
  return transport instanceof StdioClientTransport ? transport.pid : null
}

function forwardLines(stream: Stream, onLine: (line: string) => void): void {
  // A server that writes megabytes without a newline must not grow a buffer forever.
  const framer = LineFramer.text(MAX_STDERR_LINE_BYTES, 'skip')
  const forward = (framed: FramedLine<string>): void => {
    const line = framed.kind === 'line' ? framed.line : `${framed.head}... (truncated)`
    if (line.trim() === '') return
    // The line reaches a terminal (the log of a CLI command) and the model (a failure's reason):
    // the server's escape sequences are shown, not obeyed.
    onLine(terminalSafe(line))
  }
  stream.on('data', (chunk: string | Buffer) =>
    framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, forward),
  )
  stream.on('end', () => framer.end(forward))
  // Errors on a stderr pipe are not ours to handle; the connection's own close reports the loss.
  stream.on('error', () => {})
}
