// How the gateway suites call `/mcp`: an SDK client of the 2026-07-28 era with a bearer token, and
// one raw tools/call of execute_program (to send a requestState and inputResponses as they are).
import type {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'

import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'

import {MODERN_ENVELOPE} from '../helpers/json-rpc.js'

/** A JSON-RPC answer of execute_program as these suites read it. */
export interface RawAnswer {
  result?: {
    resultType?: string
    requestState: string
    inputRequests: Record<string, unknown>
    isError?: boolean
    content: Array<{text: string}>
    structuredContent?: {output: string}
  }
  error?: {message: string}
}

/** One tools/call of execute_program as a 2026-07-28 client sends it, over plain HTTP, with `extra` headers. */
export async function rawCall(
  url: string,
  token: string | undefined,
  params: Record<string, unknown>,
  extra: Record<string, string> = {},
): Promise<{status: number; answer: RawAnswer; headers: Headers}> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(token !== undefined && {Authorization: `Bearer ${token}`}),
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'execute_program',
      ...extra,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {name: 'execute_program', ...params, _meta: MODERN_ENVELOPE},
    }),
  })
  const text = await response.text()
  const {status, headers} = response
  if (!headers.get('content-type')?.includes('event-stream'))
    return {status, headers, answer: JSON.parse(text) as RawAnswer}
  const messages = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as RawAnswer & {id?: number})
  return {status, headers, answer: messages.find((message) => message.id === 7)!}
}

/** The text of an execute_program answer, and whether it succeeded. */
export function outcomeOf(answer: RawAnswer): {ok: boolean; text: string} {
  const result = answer.result!
  return {ok: result.isError !== true, text: result.content.map((c) => c.text).join('\n')}
}

export async function modernClient(url: string, token: string): Promise<Client> {
  const client = new Client({name: 'gateway-test', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: {headers: {Authorization: `Bearer ${token}`}},
    }),
  )
  return client
}

/** Runs a program through the client (of either era): whether it succeeded, and its text. */
export async function run(client: Client | ClientV1, code: string): Promise<{ok: boolean; text: string}> {
  const result = (await client.callTool({name: 'execute_program', arguments: {code}})) as {
    isError?: boolean
    content: Array<{text?: string}>
  }
  return {ok: result.isError !== true, text: result.content.map((c) => c.text ?? '').join('\n')}
}

/** `ptc_programs_total{outcome="ok"}` and the like, from /metrics text. */
export function counted(metrics: string, outcome: string): number {
  const match = new RegExp(`^ptc_programs_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)
  return match ? Number(match[1]) : 0
}
