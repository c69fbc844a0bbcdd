import {describe, expect, it} from 'vitest'

import {ERROR_BODY_BYTES} from '../../shared/limits.js'
import {cappedFetch} from './capped-fetch.js'

const answer = (id: number | string, bytes: number) => ({
  jsonrpc: '2.0',
  id,
  error: {code: -1, message: `${bytes}`},
})

/** A fetch whose answer is `parts`, streamed one by one, with this content type. */
function serving(type: string, parts: string[]): typeof fetch {
  return async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(new TextEncoder().encode(part))
          controller.close()
        },
      }),
      {headers: {'content-type': type}},
    )
}

const call = {method: 'POST', body: JSON.stringify({jsonrpc: '2.0', id: 7, method: 'tools/call', params: {}})}

describe('cappedFetch', () => {
  it('passes SSE events under the limit on, split anywhere; one over it is replaced by the error answer to its request, or dropped', async () => {
    const small = 'event: message\ndata: {"a":1}\n\n'
    const big = `event: message\ndata: {"result":{"text":"${'x'.repeat(200)}"},"jsonrpc":"2.0","id":7}\r\n\r\n`
    const notification = `event: message\ndata: {"method":"notifications/message","params":{"d":"${'y'.repeat(200)}"},"jsonrpc":"2.0"}\n\n`
    const parts = [
      ...`${small}${small}`.match(/.{1,5}/gs)!,
      big.slice(0, 100),
      big.slice(100),
      small,
      notification,
      `${small}${big}`,
      small,
    ]
    const response = await cappedFetch(
      100,
      answer,
      serving('text/event-stream', parts),
    )('http://x', {method: 'GET'})
    const refused = `event: message\ndata: ${JSON.stringify(answer(7, big.length))}\n\n`
    expect(await response.text()).toBe(`${small}${small}${refused}${small}${small}${refused}${small}`)
  })

  it('replaces a JSON answer over the limit, keeps one under it, and bounds the answers to other requests', async () => {
    const json = JSON.stringify({jsonrpc: '2.0', id: 7, result: {text: 'y'.repeat(200)}})
    const over = await cappedFetch(100, answer, serving('application/json', [json]))('http://x', call)
    expect(await over.json()).toEqual(answer(7, json.length))
    const under = await cappedFetch(1000, answer, serving('application/json', [json]))('http://x', call)
    expect(await under.text()).toBe(json)
    const notification = {
      method: 'POST',
      body: JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'}),
    }
    const untouched = await cappedFetch(
      1000,
      answer,
      serving('application/json', [json]),
    )('http://x', notification)
    expect(await untouched.text()).toBe(json)
    const over100 = await cappedFetch(
      100,
      answer,
      serving('application/json', [json]),
    )('http://x', notification)
    await expect(over100.text()).rejects.toThrow(/is over 100 bytes; it was not read further/)
  })

  it('reads an error answer to a few KiB, and an endless JSON answer no further than needed', async () => {
    let pulled = 0
    const endless =
      (status: number): typeof fetch =>
      async () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              pulled += 65_536
              controller.enqueue(new Uint8Array(65_536).fill(120))
            },
          }),
          {status, headers: {'content-type': 'application/json'}},
        )
    const error = await cappedFetch(1_000_000, answer, endless(500))('http://x', call)
    expect(await error.text()).toHaveLength(ERROR_BODY_BYTES)
    expect(pulled).toBeLessThan(1_000_000)
    pulled = 0
    const json = await cappedFetch(1_000_000, answer, endless(200))('http://x', call)
    expect(await json.json()).toMatchObject({id: 7, error: {code: -1}})
    expect(pulled).toBeLessThan(5 * 1_000_000 + 65_536 * 3)
  })
})
