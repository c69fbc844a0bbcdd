/**
 * The size limit on messages from a streamable HTTP server, as the stdio framing has it
 * (transports.ts): the SDK reads a response whole, however large, so a 1 GB result would be held in
 * the server's memory before anything could refuse it. This `fetch` wraps the answers to requests:
 * a message over the limit is dropped as it streams in, and its request gets an error answer
 * (`OVERSIZED_MESSAGE_CODE`) instead, so the call fails alone and the session goes on.
 */
import {isRecord} from '../guards.js'
import {requestId} from '../oversized-line.js'

type Fetch = typeof fetch

/** The error answer to request `id`, whose result was `bytes` long. */
export type OversizedAnswer = (id: number | string, bytes: number) => unknown

export function cappedFetch(limit: number, answer: OversizedAnswer, inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, init)
    const id = init?.method === 'POST' ? idOfRequest(init.body) : undefined
    if (id === undefined || !response.body || !response.ok) return response
    const type = response.headers.get('content-type') ?? ''
    const rebuild = (body: ReadableStream<Uint8Array>) =>
      new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      })
    if (type.includes('text/event-stream')) return rebuild(capEvents(response.body, limit, id, answer))
    if (type.includes('application/json')) return rebuild(capWhole(response.body, limit, id, answer))
    return response
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

/** A JSON body: kept up to `limit` (the SDK parses it whole anyway), else replaced by the error answer. */
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
      }
      if (bytes > limit) controller.enqueue(encoder.encode(JSON.stringify(answer(id, bytes))))
      else for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

const LF = 0x0a

/**
 * An SSE body passed on event by event; an event over `limit` is dropped as it arrives and replaced
 * by the error answer, which ends this request's stream.
 */
function capEvents(
  body: ReadableStream<Uint8Array>,
  limit: number,
  id: number | string,
  answer: OversizedAnswer,
): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  /** The last byte seen was a line feed (`\r` is dropped first): a second one ends the event. */
  let afterLineFeed = false
  const refuse = (controller: ReadableStreamDefaultController<Uint8Array>, bytes: number): void => {
    pending = []
    controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(answer(id, bytes))}\n\n`))
    controller.close()
  }
  return new ReadableStream({
    // A pull must enqueue or close before it returns: the stream does not pull again on its own.
    async pull(controller) {
      for (;;) {
        const read = await reader.read()
        if (read.done) {
          for (const part of pending) controller.enqueue(part)
          controller.close()
          return
        }
        let start = 0
        const chunk = read.value
        for (let at = 0; at < chunk.length; at++) {
          const byte = chunk[at]
          if (byte === 0x0d) continue
          if (byte === LF && afterLineFeed) {
            const eventBytes = pendingBytes + at + 1 - start
            if (eventBytes > limit) {
              await reader.cancel().catch(() => {})
              refuse(controller, eventBytes)
              return
            }
            for (const part of pending) controller.enqueue(part)
            controller.enqueue(chunk.subarray(start, at + 1))
            pending = []
            pendingBytes = 0
            start = at + 1
          }
          afterLineFeed = byte === LF
        }
        const rest = chunk.subarray(start)
        pendingBytes += rest.length
        if (pendingBytes > limit) break
        if (rest.length > 0) pending.push(rest)
        if (start > 0) return
      }
      // The event in progress is over the limit: count it to its end without keeping it, answer
      // the request instead, and end the stream.
      pending = []
      const bytes = pendingBytes + (await skipEvent(reader, afterLineFeed))
      await reader.cancel().catch(() => {})
      refuse(controller, bytes)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/** Reads to the end of the current event (a blank line) or of the stream; returns the bytes read. */
async function skipEvent(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  afterLineFeed: boolean,
): Promise<number> {
  let bytes = 0
  let lineFeed = afterLineFeed
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    for (let at = 0; at < read.value.length; at++) {
      const byte = read.value[at]
      if (byte === 0x0d) continue
      if (byte === LF && lineFeed) return bytes + at + 1
      lineFeed = byte === LF
    }
    bytes += read.value.length
  }
  return bytes
}
