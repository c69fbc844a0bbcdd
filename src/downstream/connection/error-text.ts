import {SdkHttpError} from '@modelcontextprotocol/client'

/** The message of an error and of its causes (`fetch failed: connect ECONNREFUSED 127.0.0.1:9`), without repeats. */
export function describeError(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const trimmed = withHttpStatus(current, messageOf(current).trim())
    if (trimmed && !parts.some((p) => p.includes(trimmed))) parts.push(trimmed)
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join(': ') || 'unknown error'
}

/** A reason with the stderr line that explains it, when there is one. */
export function withStderr(reason: string, line: string | undefined): string {
  return line ? `${reason}; stderr: ${line}` : reason
}

/** HTTP errors from the SDK carry the status apart from the message (which may be the body). */
function withHttpStatus(error: unknown, message: string): string {
  const status = (error as {status?: unknown} | null)?.status
  if (typeof status !== 'number' || message.includes(String(status))) return message
  return `HTTP ${status}${message ? ` (${message})` : ''}`
}

function messageOf(value: unknown): string {
  if (value instanceof SdkHttpError && typeof value.status === 'number') return httpErrorMessage(value)
  if (value instanceof Error) return value.message
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Bound on the part of an HTTP error body quoted in a reason: an HTML error page can be huge. */
const HTTP_BODY_CHARS = 200

/**
 * `HTTP 500 Internal Server Error: <start of the body>`. The SDK's message is the whole body
 * without the status ("Error POSTing to endpoint: <!DOCTYPE html>..."), and this text ends up in
 * list_callable_tools, in every ToolError and in the log.
 */
function httpErrorMessage(error: SdkHttpError): string {
  const {status, statusText} = error
  const data = error.data as {text?: unknown} | undefined
  const raw = typeof data?.text === 'string' ? data.text.slice(0, 64 * HTTP_BODY_CHARS) : ''
  const quoted = bodyText(raw, /^\s*</.test(raw))
  const hint =
    status === 401 || status === 403 ? ' (check the headers, such as Authorization, in the config)' : ''
  return `HTTP ${status}${statusText ? ` ${statusText}` : ''}${hint}${quoted ? `: ${quoted}` : ''}`
}

/**
 * The start of an HTTP error body as one line, at most HTTP_BODY_CHARS: a web page's text without
 * its head (whose title the page's heading repeats) and markup.
 */
export function bodyText(body: string, page: boolean): string {
  const words = page ? body.replaceAll(/<head[\s>][\s\S]*?<\/head>/gi, ' ').replaceAll(/<[^>]*>/g, ' ') : body
  const text = words.replaceAll(/\s+/g, ' ').trim()
  return text.length > HTTP_BODY_CHARS ? `${text.slice(0, HTTP_BODY_CHARS)}...` : text
}
