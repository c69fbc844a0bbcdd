import type {PausedRegistry} from './state-store.js'

/** Marks a request one replica passed to another: it is never passed on again. */
export const FORWARDED_HEADER = 'x-ptc-mcp-forwarded'

/** Headers that belong to one connection, not to the request. */
const HOP_BY_HOP = new Set(['connection', 'content-length', 'host', 'keep-alive', 'transfer-encoding'])

/**
 * A resume (`requestState`) whose program is paused in another replica is sent there (SPEC §18):
 * the same body and headers (the caller's token included: the owner checks it, and the principal
 * the state was issued to), and its answer passed back as it comes. Returns undefined when the
 * request is to be served here.
 */
export async function forwardResume(
  request: Request,
  registry: PausedRegistry,
  self: string,
): Promise<Response | undefined> {
  if (request.method !== 'POST' || request.headers.has(FORWARDED_HEADER)) return undefined
  const body = await request.clone().text()
  const message = parse(body)
  const state = message?.params?.requestState
  if (typeof state !== 'string') return undefined
  const owner = await registry.ownerOf(state)
  if (owner === undefined || owner === self) return undefined
  const headers = new Headers()
  for (const [name, value] of request.headers.entries()) {
    if (!HOP_BY_HOP.has(name)) headers.set(name, value)
  }
  headers.set(FORWARDED_HEADER, self)
  try {
    return await fetch(`${owner}/mcp`, {method: 'POST', headers, body, signal: request.signal})
  } catch {
    return Response.json({
      jsonrpc: '2.0',
      id: message?.id ?? null,
      result: {
        isError: true,
        content: [
          {
            type: 'text',
            text: 'the gateway replica running this program is gone: the program ended, and nothing more of it ran. Call execute_program again without requestState to run it anew.',
          },
        ],
      },
    })
  }
}

interface Message {
  id?: number | string
  params?: {requestState?: unknown}
}

function parse(body: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Message)
      : undefined
  } catch {
    return undefined
  }
}
