import {
  SSEClientTransport,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client'

import type {RemoteServerConfig} from '../config/schema.js'
import type {FailureCause} from './failure.js'
import type {ServerTransport, TransportOptions} from './transports.js'

import {cappedFetch} from './capped-fetch.js'
import {describeError} from './error-text.js'
import {oversizedAnswer} from './oversized-answer.js'

/**
 * A server reached over streamable HTTP or SSE. It reports a dead server only as errors (a dropped
 * stream, a failed POST), so an error on an open connection is checked with a ping.
 */
export function remoteTransport(server: RemoteServerConfig): ServerTransport {
  return {
    create: (options) => createRemoteTransport(server, options),
    failureCause: (error) => ({...remoteFailureKind(error), message: describeError(error)}),
    closedReason: () => 'connection closed',
    pingsOnError: true,
  }
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

/** The first numeric `status` along an error's cause chain (the SDK's HTTP errors carry one). */
export function httpStatusOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const {status} = current as {status?: unknown}
    if (typeof status === 'number' && status >= 100 && status <= 599) return status
    current = current instanceof Error ? current.cause : undefined
  }
  return undefined
}

/** The first errno-style `code` (`ECONNREFUSED`, `ENOTFOUND`) along an error's cause chain. */
export function errnoOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const {code} = current as {code?: unknown}
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code
    current = current instanceof Error ? current.cause : undefined
  }
  return undefined
}

/** The kind of a remote failure, from the error object. */
function remoteFailureKind(error: unknown): Pick<FailureCause, 'kind' | 'status'> {
  const status = httpStatusOf(error)
  if (status !== undefined) return {kind: 'http_status', status}
  const code = errnoOf(error)
  if (code === 'ECONNREFUSED') return {kind: 'connection_refused'}
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return {kind: 'unknown_host'}
  return {kind: 'other'}
}
