import {
  SSEClientTransport,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client'

import type {RemoteServerConfig} from '../../config/schema.js'
import type {ServerTransport, TransportOptions} from './server-transport.js'

import {withTraceHeader} from '../../shared/trace-context.js'
import {
  isTellingResponse,
  remoteFailureCause,
  type ResponseFacts,
  responseFacts,
} from '../connection/remote-failure.js'
import {cappedFetch} from './capped-fetch.js'
import {oversizedAnswer} from './oversized-answer.js'

/**
 * A server reached over streamable HTTP or SSE. It reports a dead server only as errors (a dropped
 * stream, a failed POST), so an error on an open connection is checked with a ping.
 */
export function remoteTransport(server: RemoteServerConfig): ServerTransport {
  // The telling answer of the current attempt (attempts of one server never overlap).
  let answer: ResponseFacts | undefined
  return {
    create(options) {
      answer = undefined
      return createRemoteTransport(server, options, (facts) => {
        if (answer === undefined && isTellingResponse(facts)) answer = facts
      })
    },
    failureCause: (error) => remoteFailureCause(error, server, answer),
    closedReason: () => 'connection closed',
    pingsOnError: true,
  }
}

function createRemoteTransport(
  server: RemoteServerConfig,
  options: TransportOptions,
  onAnswer: (facts: ResponseFacts) => void,
): Transport {
  const {authProvider} = options
  const url = new URL(server.url)
  const requestInit = {headers: {...server.headers}}
  const limit = options.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE
  // The SDK reads a message whole, whatever its size: one over the limit fails its call alone.
  const observed: typeof globalThis.fetch = async (input, init) => {
    // A traced call's context goes on to the server as its `traceparent` header (SPEC §18).
    const response = await globalThis.fetch(input, withTraceHeader(init))
    onAnswer(responseFacts(response, init?.method))
    return response
  }
  const fetch = cappedFetch(limit, (id, bytes) => oversizedAnswer(id, bytes, limit), observed)
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
