/**
 * The size limit on messages from a remote server (streamable HTTP or legacy SSE), as the stdio
 * framing has it (transports.ts): the SDK reads a message whole, however large, so a 1 GB result
 * would be held in the server's memory before anything could refuse it. This `fetch` wraps what
 * comes back: a message over the limit is dropped as it streams in, and its request gets an error
 * answer (`OVERSIZED_MESSAGE_CODE`) instead, so the call fails alone and the session goes on.
 * An error answer (HTTP 4xx/5xx) is read to ERROR_BODY_BYTES, enough for its message; any other
 * body (an OAuth answer, the answer to a notification) fails past the limit.
 */
import {boundBody} from '../../shared/bounded-fetch.js'
import {isRecord} from '../../shared/guards.js'
import {ERROR_BODY_BYTES} from '../../shared/limits.js'
import {
  idOfSkipped,
  isCallHead,
  OversizedLine,
  requestId,
  type SkippedLine,
} from '../../shared/oversized-line.js'

type Fetch = typeof fetch

/** The error answer to request `id`, whose result was `bytes` long. */
export type OversizedAnswer = (id: number | string, bytes: number) => unknown

export function cappedFetch(limit: number, answer: OversizedAnswer, inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init)
    if (!response.body) return response
    if (!response.ok) return boundBody(response, ERROR_BODY_BYTES, 'truncate')
    const type = response.headers.get('content-type') ?? ''
    const rebuild = (body: ReadableStream<Uint8Array>) =>
      new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      })
    // Event streams (a POST's answer, the standalone GET stream, the legacy transport's stream) carry
    // the id in each event; a JSON answer is the answer to the request just sent.
    if (type.includes('text/event-stream')) return rebuild(capEvents(response.body, limit, answer))
    const id = init?.method === 'POST' ? idOfRequest(init.body) : undefined
    if (id !== undefined && type.includes('application/json'))
      return rebuild(capWhole(response.body, limit, id, answer))
    return boundBody(response, limit, 'error')
  }
}

/** The id of the JSON-RPC request being sent (not of a notification, a response or a batch). */
function idOfRequest(body: unknown): number | string | undefined {
  if (typeof body !== 'string') return undefined
  try {
    const message: unknown = JSON.parse(body)
    return isRecord(message) && typeof message.method === 'string' ? requestId(message) : undefined
  } catch {
    return undefined
  }
}

const encoder = new TextEncoder()

/** How far past the limit an oversized JSON answer is read (and dropped) to report its size. */
const DRAIN_FACTOR = 4

/**
 * A JSON body: kept up to `limit` (the SDK parses it whole anyway), else replaced by the error
 * answer; past DRAIN_FACTOR times the limit the rest is never read.
 */
function capWhole(
  body: ReadableStream<Uint8Array>,
  limit: number,
  id: number | string,
  answer: OversizedAnswer,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  return new ReadableStream({
    async start(controller) {
      const chunks: Uint8Array[] = []
      let bytes = 0
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        bytes += read.value.length
        if (bytes <= limit) chunks.push(read.value)
        else chunks.length = 0
        // Counted to its end when it has one within reason; an endless body is cut there.
        if (bytes > DRAIN_FACTOR * limit) {
          await reader.cancel().catch(() => {})
          break
        }
      }
      if (bytes > limit) controller.enqueue(encoder.encode(JSON.stringify(answer(id, bytes))))
      else for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

const LF = 0x0a
const CR = 0x0d

/**
 * An SSE body passed on event by event. An event over `limit` is dropped as it arrives (counted,
 * only its two ends kept) and, when it is the answer to a request, replaced by the error answer to
 * that request; the stream goes on, as the legacy transport's one stream carries every answer.
 */
function capEvents(
  body: ReadableStream<Uint8Array>,
  limit: number,
  answer: OversizedAnswer,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  let skipping: OversizedLine | undefined
  /** The last byte seen was a line feed (`\r` is passed over): a second one ends the event. */
  let afterLineFeed = false

  const endEvent = (controller: ReadableStreamDefaultController<Uint8Array>, last: Uint8Array): boolean => {
    if (!skipping && pendingBytes + last.length <= limit) {
      for (const part of [...pending, last]) controller.enqueue(part)
      pending = []
      pendingBytes = 0
      return true
    }
    skipping ??= startSkipping()
    skipping.add(asBuffer(last))
    const refusal = refusalOf(skipping.finish(), answer)
    skipping = undefined
    if (refusal === undefined) return false
    controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(refusal)}\n\n`))
    return true
  }
  const startSkipping = (): OversizedLine => {
    const line = new OversizedLine()
    for (const part of pending) line.add(asBuffer(part))
    pending = []
    pendingBytes = 0
    return line
  }

  return new ReadableStream({
    // A pull must enqueue or close before it returns: the stream does not pull again on its own.
    async pull(controller) {
      for (let enqueued = false; !enqueued;) {
        const read = await reader.read()
        if (read.done) {
          if (!skipping) for (const part of pending) controller.enqueue(part)
          controller.close()
          return
        }
        const chunk = read.value
        let start = 0
        for (let at = 0; at < chunk.length; at++) {
          const byte = chunk[at]
          if (byte === CR) continue
          if (byte === LF && afterLineFeed) {
            enqueued = endEvent(controller, chunk.subarray(start, at + 1)) || enqueued
            start = at + 1
          }
          afterLineFeed = byte === LF
        }
        const rest = chunk.subarray(start)
        if (rest.length === 0) continue
        if (!skipping && pendingBytes + rest.length > limit) skipping = startSkipping()
        if (skipping) skipping.add(asBuffer(rest))
        else {
          pending.push(rest)
          pendingBytes += rest.length
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/** The error answer for a dropped event, when it was the answer to a request (it has an id and no method). */
function refusalOf(event: SkippedLine, answer: OversizedAnswer): unknown {
  const data = /^data: ?/m.exec(event.head)
  if (!data) return undefined
  const head = event.head.slice(data.index + data[0].length)
  const message = {bytes: event.bytes, head, tail: event.tail.trimEnd()}
  const id = idOfSkipped(message)
  return id === undefined || isCallHead(head) ? undefined : answer(id, event.bytes)
}

/** The same bytes as a Buffer, not copied. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
}
