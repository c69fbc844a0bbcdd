/**
 * Why a remote (http or sse) server could not be reached, decided in one place from what the
 * server answered: the status, the content type and the body (SPEC §4). A web page where an MCP
 * endpoint was expected, a URL that is not an SSE stream, credentials wanted, a server failing on
 * its side and a network failure each get their own kind, message and fix.
 */
import {SdkHttpError} from '@modelcontextprotocol/client'

import type {RemoteServerConfig} from '../../config/schema.js'
import type {FailureCause} from './failure-cause.js'

import {authCommand} from '../../oauth/errors.js'
import {errnoOf} from '../../shared/errors.js'
import {bodyText, describeError} from './error-text.js'

/** What one HTTP answer said about itself: recorded by the transport's fetch, before the SDK reads it. */
export interface ResponseFacts {
  method: string
  status: number
  statusText: string
  /** The media type, lower case, without parameters (`text/html`); empty when none was sent. */
  contentType: string
}

/** Bound on the part of an error body read (what is quoted is shorter: see bodyText). */
const BODY_CHARS = 200

/** Statuses a web server gives to a request it has no MCP endpoint for (no such path, no POST). */
const NOT_AN_ENDPOINT = new Set([404, 405, 501])
/** Statuses a proxy gives when the server behind it is down: the server's side, whatever the page. */
const GATEWAY = new Set([502, 503, 504])

/**
 * The answer worth judging in an attempt: the first that failed or that was neither JSON nor an
 * event stream. Later answers (the SDK's cleanup) say less.
 */
export function isTellingResponse(facts: ResponseFacts): boolean {
  if (facts.status >= 400) return true
  if (facts.status === 202 || facts.status === 204 || facts.status >= 300) return false
  return facts.contentType !== 'application/json' && facts.contentType !== 'text/event-stream'
}

/** The facts of a fetch `Response`. */
export function responseFacts(response: Response, method: string | undefined): ResponseFacts {
  const type = response.headers.get('content-type') ?? ''
  return {
    method: (method ?? 'GET').toUpperCase(),
    status: response.status,
    statusText: response.statusText,
    contentType: type.split(';')[0]?.trim().toLowerCase() ?? '',
  }
}

/**
 * The kind and reason of a failed attempt to reach `server`: from the telling answer when there
 * was one, else from the error's own status or errno.
 */
export function remoteFailureCause(
  error: unknown,
  server: RemoteServerConfig,
  answer: ResponseFacts | undefined,
): FailureCause {
  const status = answer?.status ?? statusOf(error)
  if (status === undefined) return networkCause(error)
  const facts: ResponseFacts = answer ?? {method: 'POST', status, statusText: '', contentType: ''}
  const body = bodyOf(error)
  const page = facts.contentType === 'text/html' || /^\s*</.test(body)
  const said = `HTTP ${status}${facts.statusText ? ` ${facts.statusText}` : ''}`
  if (status === 401 || status === 403)
    return {
      kind: 'needs_credentials',
      status,
      message: withBody(`${said} (check the headers, such as Authorization, in the config)`, body, page),
    }
  if (GATEWAY.has(status) || (status >= 500 && !NOT_AN_ENDPOINT.has(status)))
    return {kind: 'server_error', status, message: withBody(said, body, page)}
  if (server.transport === 'sse' && facts.method === 'GET' && status < 300)
    return {
      kind: 'not_sse_stream',
      status,
      message: `not an SSE stream: GET answered ${describeType(facts.contentType)}, not text/event-stream`,
    }
  if (NOT_AN_ENDPOINT.has(status) || page || (status < 300 && facts.contentType !== ''))
    return {
      kind: 'not_mcp_endpoint',
      status,
      message: `not an MCP endpoint: ${facts.method} got ${said}${whatCame(facts, page)}`,
    }
  return {kind: 'http_status', status, message: withBody(said, body, page)}
}

/** The fix for each remote kind, with the URL's path where it helps. */
export function remoteFix({kind, status}: FailureCause, server: RemoteServerConfig): string {
  const path = URL.canParse(server.url) ? new URL(server.url).pathname : ''
  switch (kind) {
    case 'needs_credentials': {
      return status === 403
        ? 'the credentials were refused: check the token in headers and its permissions'
        : `the server wants credentials: set headers (e.g. Authorization: "Bearer \${TOKEN}"), or add oauth: {} and run \`${authCommand(server.name)}\``
    }
    case 'not_mcp_endpoint': {
      return `no MCP endpoint at ${path || 'that URL'}: check the url (the MCP path is often /mcp for http, /sse for sse)`
    }
    case 'not_sse_stream': {
      return `${path || 'that URL'} is not an SSE endpoint: use its SSE path (often /sse), or transport: http if it is a streamable HTTP endpoint (often /mcp)`
    }
    case 'server_error': {
      return 'the server failed on its side: check its own logs, or try again later'
    }
    default: {
      return 'the server refused the request: check the url and the headers'
    }
  }
}

function networkCause(error: unknown): FailureCause {
  const message = describeError(error)
  const code = errnoOf(error)
  if (code === 'ECONNREFUSED') return {kind: 'connection_refused', message}
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return {kind: 'unknown_host', message}
  return {kind: 'other', message}
}

/** `said` and the start of the body, once. */
function withBody(said: string, body: string, page: boolean): string {
  const text = bodyText(body, page)
  return text ? `${said}: ${text}` : said
}

function describeType(type: string): string {
  return type || 'no content type'
}

/** What a non-MCP answer carried: a web page, or (for a success) its content type. */
function whatCame(facts: ResponseFacts, page: boolean): string {
  if (page) return ' and a web page'
  return facts.status < 300 && facts.contentType ? ` and ${facts.contentType}` : ''
}

/** The body the SDK kept on its HTTP error (bounded by the transport's fetch), else empty. */
function bodyOf(error: unknown): string {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof SdkHttpError) {
      const data = current.data as {text?: unknown} | undefined
      if (typeof data?.text === 'string') return data.text.slice(0, 64 * BODY_CHARS)
    }
    current = current instanceof Error ? current.cause : undefined
  }
  return ''
}

/** The first numeric `status` along an error's cause chain (the SDK's HTTP errors carry one). */
export function statusOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const {status} = current as {status?: unknown}
    if (typeof status === 'number' && status >= 100 && status <= 599) return status
    current = current instanceof Error ? current.cause : undefined
  }
  return undefined
}
