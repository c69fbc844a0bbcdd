// @tier unit
import type {AddressInfo} from 'node:net'

import {createServer, type Server} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {boundedFetch} from './bounded-fetch.js'
import {ERROR_BODY_BYTES} from './limits.js'

let server: Server
let base: string
/** Bytes the server managed to write, per path. */
const written = new Map<string, number>()

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/'
    if (path === '/silent') return // headers never come
    response.writeHead(path === '/error' ? 500 : 200, {'content-type': 'application/json'})
    if (path === '/small') return response.end('{"ok":true}')
    const chunk = Buffer.alloc(64 * 1024, 0x78)
    const more = (): void => {
      let room = true
      while (!response.destroyed && room) {
        room = response.write(chunk)
        written.set(path, (written.get(path) ?? 0) + chunk.length)
      }
      if (!response.destroyed) response.once('drain', more)
    }
    more()
  })
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => {
    server.close(resolve)
  })
})

describe('boundedFetch', () => {
  const bounded = boundedFetch({maxBytes: 1024 * 1024, timeoutMs: 2000})

  it('passes an answer within the bounds as it is', async () => {
    expect(await (await bounded(`${base}/small`)).json()).toEqual({ok: true})
  })

  it('fails an endless answer at its byte bound, naming it, and stops reading', async () => {
    const response = await bounded(`${base}/endless`)
    await expect(response.text()).rejects.toThrow(/is over 1048576 bytes; it was not read further/)
    // The socket buffers hold a little more than what was read; nowhere near endless.
    expect(written.get('/endless')).toBeLessThan(16 * 1024 * 1024)
  })

  it('reads an endless error answer to ERROR_BODY_BYTES', async () => {
    const response = await bounded(`${base}/error`)
    expect(response.status).toBe(500)
    expect(await response.text()).toHaveLength(ERROR_BODY_BYTES)
  })

  it('gives up on a server that never answers, saying after how long', async () => {
    const started = Date.now()
    await expect(bounded(`${base}/silent`)).rejects.toThrow(/no answer within 2 s from 127\.0\.0\.1:\d+/)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
  })
})
