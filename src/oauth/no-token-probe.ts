import type {RemoteServerConfig} from '../config/transports.js'

import {oauthFetch} from '../shared/bounded-fetch.js'

/**
 * The one request sent to a remote server without a token, to read its answer: a 401 with a Bearer
 * challenge (RFC 9728's resource_metadata, the scope) says it signs in with OAuth. An `initialize`
 * POST for streamable HTTP, a GET of the event stream for SSE. The body is not read.
 */
export async function askWithoutToken(server: RemoteServerConfig, signal: AbortSignal): Promise<Response> {
  const init: Parameters<typeof fetch>[1] =
    server.transport === 'sse'
      ? {method: 'GET', headers: {...server.headers, accept: 'text/event-stream'}}
      : {
          method: 'POST',
          headers: {
            ...server.headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: {name: 'ptc-mcp', version: '0'},
            },
          }),
        }
  const response = await oauthFetch(server.url, {...init, signal})
  await response.body?.cancel().catch(() => {})
  return response
}
