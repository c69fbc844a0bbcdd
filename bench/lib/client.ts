// A real MCP client (SDK v2, the default initialize handshake) of a stdio server, and the timing
// of one tool call through it. Every connection is tracked, so a failed run still closes them all.
import type {CallToolResult} from '@modelcontextprotocol/client'

import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {performance} from 'node:perf_hooks'

import {ROOT} from './paths.js'

export interface Launch {
  command: string
  args: string[]
  env?: Record<string, string>
  cwd?: string
}

export interface Connection {
  client: Client
  pid: number | undefined
  /** What the server wrote to stderr so far (the first 100 kB). */
  stderr(): string
  close(): Promise<void>
}

const open = new Set<Connection>()

export async function connect(name: string, launch: Launch): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: {...(process.env as Record<string, string>), ...launch.env},
    cwd: launch.cwd ?? ROOT,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 100_000) stderr += chunk.toString()
  })
  const client = new Client({name, version: '1.0.0'})
  await client.connect(transport)
  const connection: Connection = {
    client,
    pid: transport.pid ?? undefined,
    stderr: () => stderr,
    async close() {
      open.delete(connection)
      await client.close().catch(() => {})
    },
  }
  open.add(connection)
  return connection
}

/** Connects, timing the launch until the first tools/list answer: a gateway's start figure. */
export async function connectTimed(
  name: string,
  launch: Launch,
): Promise<{connection: Connection; startMs: number}> {
  const t0 = performance.now()
  const connection = await connect(name, launch)
  await connection.client.listTools()
  return {connection, startMs: performance.now() - t0}
}

export async function closeAll(): Promise<void> {
  await Promise.allSettled([...open].map((connection) => connection.close()))
}

export interface TimedResult {
  ms: number
  result: CallToolResult
}

export async function timedCall(
  connection: Connection,
  name: string,
  args: Record<string, unknown> = {},
): Promise<TimedResult> {
  const t0 = performance.now()
  const result = (await connection.client.callTool(
    {name, arguments: args},
    {timeout: 300_000},
  )) as CallToolResult
  return {ms: performance.now() - t0, result}
}

/** The text items of a tool result, joined. */
export function resultText(result: Pick<CallToolResult, 'content'>): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : '')).join('')
}
