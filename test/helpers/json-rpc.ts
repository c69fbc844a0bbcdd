// Drives `ptc-mcp serve` with raw JSON-RPC lines: what a client sends, byte for byte, and every
// line the server writes on stdout, checked to be JSON-RPC.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'

import type {ServeSetup} from './serve.js'

export type Message = Record<string, unknown>

export function initialize(id: number | string, protocolVersion = '2025-06-18'): Message {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {protocolVersion, capabilities: {}, clientInfo: {name: 'raw', version: '1'}},
  }
}

export function callTool(id: number | string, name: string, args: Record<string, unknown>): Message {
  return {jsonrpc: '2.0', id, method: 'tools/call', params: {name, arguments: args}}
}

export interface JsonLines {
  /** Every JSON-RPC message received so far, in order. */
  all: Message[]
  /** Lines that were not JSON-RPC (must stay empty: stdout is the protocol). */
  invalid: string[]
  waitFor(match: (m: Message) => boolean, timeoutMs?: number): Promise<Message>
}

/** Every stdout line parsed as JSON-RPC; lines that are not are collected in `invalid`. */
export function jsonLines(stream: NodeJS.ReadableStream): JsonLines {
  const all: Message[] = []
  const invalid: string[] = []
  const waiters: Array<{match: (m: Message) => boolean; resolve: (m: Message) => void}> = []
  let buffer = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    buffer += chunk
    let newline
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      let message: Message
      try {
        message = JSON.parse(line) as Message
        if (message.jsonrpc !== '2.0') throw new Error('not JSON-RPC')
      } catch {
        invalid.push(line)
        continue
      }
      all.push(message)
      for (const waiter of waiters.filter((w) => w.match(message))) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(message)
      }
    }
  })
  return {
    all,
    invalid,
    waitFor(match: (m: Message) => boolean, timeoutMs = 20_000): Promise<Message> {
      const seen = all.find((m) => match(m))
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching message in ${timeoutMs} ms`)), timeoutMs)
        waiters.push({
          match,
          resolve(m) {
            clearTimeout(timer)
            resolve(m)
          },
        })
      })
    },
  }
}

export interface RawServe {
  child: ChildProcessWithoutNullStreams
  /** serve's answer to `initialize` (or to `server/discover` with `modern`). */
  initialized: Message
  lines: JsonLines
  /** Everything serve wrote to stderr so far (its log). */
  stderr(): string
  /** Writes a raw line (a newline is added). */
  sendLine(line: string): void
  send(message: Message): void
  /** Sends a request with a fresh id and resolves with the response to it. */
  request(method: string, params?: unknown, timeoutMs?: number): Promise<Message>
  /** `tools/call` with a fresh id; resolves with the response. */
  callTool(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<Message>
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>
  /** SIGKILL if still running; waits for the exit. */
  kill(): Promise<void>
}

/** The per-request envelope of a 2026-07-28 client (an elicitation-capable one, as Claude Code is). */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': {name: 'raw', version: '1'},
  'io.modelcontextprotocol/clientCapabilities': {elicitation: {form: {}, url: {}}},
}

/**
 * Spawns `serve` with the setup's config and completes the 2025-era initialize handshake, or with
 * `modern`, probes with `server/discover` and sends every request with the 2026-07-28 envelope.
 */
export async function startRawServe(setup: ServeSetup, {modern = false} = {}): Promise<RawServe> {
  const child = spawn(process.execPath, setup.args, {
    env: setup.env,
    cwd: setup.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code))
  })
  const lines = jsonLines(child.stdout)
  let nextId = 1000
  const sendLine = (line: string) => child.stdin.write(`${line}\n`)
  const send = (message: Message) => sendLine(JSON.stringify(message))
  const request = (method: string, params?: unknown, timeoutMs?: number): Promise<Message> => {
    const id = nextId++
    if (modern) params = withEnvelope(params)
    send({jsonrpc: '2.0', id, method, ...(params === undefined ? {} : {params})})
    return lines.waitFor((m) => m.id === id && m.method === undefined, timeoutMs)
  }
  const raw: Omit<RawServe, 'initialized'> = {
    child,
    lines,
    stderr: () => stderr,
    sendLine,
    send,
    request,
    callTool: (name, args, timeoutMs) => request('tools/call', {name, arguments: args}, timeoutMs),
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
  try {
    send(
      modern ? {jsonrpc: '2.0', id: 0, method: 'server/discover', params: withEnvelope({})} : initialize(0),
    )
    const gone = exited.then((code) => {
      throw new Error(`serve exited with code ${code}`)
    })
    gone.catch(() => {})
    const initialized = await Promise.race([lines.waitFor((m) => m.id === 0, 30_000), gone])
    if (!modern) send({jsonrpc: '2.0', method: 'notifications/initialized'})
    return {...raw, initialized}
  } catch (error) {
    await raw.kill()
    throw new Error(`serve did not initialize: ${stderr}`, {cause: error})
  }
}

function withEnvelope(params: unknown): Record<string, unknown> {
  const given = (params ?? {}) as Record<string, unknown>
  return {...given, _meta: {...(given._meta as Record<string, unknown> | undefined), ...MODERN_ENVELOPE}}
}

interface ToolCallResponse {
  content?: Array<{type: string; text?: string}>
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/** The result of a tools/call response; throws when the response is a JSON-RPC error. */
export function toolResult(response: Message): ToolCallResponse {
  if (response.error) throw new Error(`JSON-RPC error: ${JSON.stringify(response.error)}`)
  return response.result as ToolCallResponse
}

/** The first text item of a tools/call response. */
export function resultText(response: Message): string {
  return toolResult(response).content?.[0]?.text ?? ''
}
