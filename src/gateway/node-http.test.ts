// @tier unit
// node:http ↔ web Request: many requests on one keep-alive connection leave no listener behind on
// its socket (no MaxListenersExceededWarning), and a client that goes away still aborts its request.
import type {Socket} from 'node:net'

import {Agent, createServer, request as httpRequest, type Server} from 'node:http'
import {afterEach, expect, it} from 'vitest'

import {sendWebResponse, textResponse, toWebRequest} from './node-http.js'

let server: Server | undefined

afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((done) => {
    server?.close(done)
  })
  server = undefined
})

/** A server answering with `answer`; resolves with its URL. */
async function serve(answer: (request: Request) => Promise<Response>): Promise<string> {
  server = createServer((req, res) => {
    toWebRequest(req, res, 1024)
      .then(async (request) =>
        sendWebResponse(res, request === 'too large' ? textResponse(413, '') : await answer(request)),
      )
      .catch(() => res.end())
  })
  await new Promise<void>((done) => {
    server!.listen(0, '127.0.0.1', done)
  })
  const {port} = server.address() as {port: number}
  return `http://127.0.0.1:${port}`
}

function post(url: string, agent: Agent): Promise<{status: number; socket: Socket}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/mcp`, {method: 'POST', agent}, (res) => {
      res.resume()
      res.on('end', () => resolve({status: res.statusCode ?? 0, socket: req.socket!}))
    })
    req.on('error', reject)
    req.end('{"jsonrpc":"2.0"}')
  })
}

it('adds no listener per request to a keep-alive connection', async () => {
  const warnings: Error[] = []
  const onWarning = (warning: Error) => warnings.push(warning)
  process.on('warning', onWarning)
  const sockets = new Set<Socket>()
  const url = await serve(async () => textResponse(200, 'ok'))
  server!.on('connection', (socket: Socket) => sockets.add(socket))
  const agent = new Agent({keepAlive: true, maxSockets: 1})
  try {
    const counts: number[] = []
    for (let i = 0; i < 40; i++) {
      expect((await post(url, agent)).status).toBe(200)
      counts.push(...[...sockets].map((socket) => socket.listenerCount('close')))
    }
    expect(sockets.size).toBe(1)
    // What node:http itself keeps on a socket, the same after the 40th request as after the first.
    expect(counts.at(-1)).toBe(counts[0])
    await new Promise((done) => {
      setImmediate(done)
    })
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([])
  } finally {
    process.off('warning', onWarning)
    agent.destroy()
  }
})

it("aborts a request's signal when its client goes away before the answer, not after it", async () => {
  let aborted: Promise<void> | undefined
  const signals: AbortSignal[] = []
  const url = await serve(async (request) => {
    signals.push(request.signal)
    if (signals.length === 1) return textResponse(200, 'quick')
    aborted = new Promise((done) => {
      request.signal.addEventListener('abort', () => done())
    })
    await aborted
    return textResponse(200, 'too late')
  })
  const agent = new Agent({keepAlive: true, maxSockets: 1})
  const {socket} = await post(url, agent)
  const slow = httpRequest(`${url}/mcp`, {method: 'POST', agent})
  slow.on('error', () => {})
  slow.end('{}')
  while (signals.length < 2)
    await new Promise((done) => {
      setTimeout(done, 10)
    })
  expect(slow.reusedSocket).toBe(true)
  socket.destroy()
  await aborted
  expect(signals[1]!.aborted).toBe(true)
  // The first request was answered in full: its signal is not aborted when the connection closes.
  expect(signals[0]!.aborted).toBe(false)
  agent.destroy()
})
