import {ERROR_BODY_BYTES, OAUTH_MAX_BODY_BYTES, OAUTH_TIMEOUT_MS} from './limits.js'

/**
 * Every read of a remote server's answer is bounded in bytes and, for the OAuth requests, in time
 * (SPEC §15): a body that goes on and on (a 1 GB error page, endless discovery JSON) is cut where
 * the bound says, never read whole into this server's memory.
 */

type Fetch = typeof fetch

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304])

/**
 * The same response with its body bounded to `maxBytes`: past it the rest is never read (the
 * connection is cancelled) and the body ends (`truncate`) or fails with an error naming the bound.
 */
export function boundBody(response: Response, maxBytes: number, over: 'error' | 'truncate'): Response {
  if (!response.body || NULL_BODY.has(response.status)) return response
  const reader = response.body.getReader()
  let bytes = 0
  const host = URL.canParse(response.url) ? new URL(response.url).host : 'the server'
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await reader.read()
      if (read.done) {
        controller.close()
        return
      }
      const room = maxBytes - bytes
      bytes += read.value.length
      if (read.value.length <= room) {
        controller.enqueue(read.value)
        return
      }
      await reader.cancel().catch(() => {})
      if (over === 'error') {
        controller.error(
          new Error(`the answer from ${host} is over ${maxBytes} bytes; it was not read further`),
        )
        return
      }
      if (room > 0) controller.enqueue(read.value.subarray(0, room))
      controller.close()
    },
    cancel: (reason) => reader.cancel(reason),
  })
  const bounded = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
  // The SDK reads the final URL of discovery answers.
  Object.defineProperty(bounded, 'url', {value: response.url})
  return bounded
}

/**
 * A fetch whose every answer is bounded: the body to `maxBytes` (an error past it), the whole
 * request, body included, to `timeoutMs` (with the caller's own signal, if any, still in force).
 */
export function boundedFetch(
  {maxBytes, timeoutMs}: {maxBytes: number; timeoutMs: number},
  inner: Fetch = fetch,
): Fetch {
  return async (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    let response: Response
    try {
      response = await inner(input, {...init, signal})
    } catch (error) {
      if (timeout.aborted)
        throw new Error(`no answer within ${timeoutMs / 1000} s from ${hostOf(input)}`, {cause: error})
      throw error
    }
    return boundBody(response, response.ok ? maxBytes : ERROR_BODY_BYTES, response.ok ? 'error' : 'truncate')
  }
}

function hostOf(input: Parameters<Fetch>[0]): string {
  const url = input instanceof Request ? input.url : String(input)
  return URL.canParse(url) ? new URL(url).host : 'the server'
}

/** The fetch of every OAuth request: bounded to OAUTH_MAX_BODY_BYTES and OAUTH_TIMEOUT_MS. */
export const oauthFetch: Fetch = boundedFetch({maxBytes: OAUTH_MAX_BODY_BYTES, timeoutMs: OAUTH_TIMEOUT_MS})
