// @tier unit
import type {JSONRPCMessage} from '@modelcontextprotocol/server'

import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {silentLogger} from '../shared/log.js'
import {JsonLinesServerTransport} from './stdio-server-transport.js'

/** A transport on in-memory streams; `replies` collects what it writes back. */
async function open(limit = 1000) {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const transport = new JsonLinesServerTransport(stdin, stdout, {
    maxMessageBytes: limit,
    logger: silentLogger,
  })
  const received: JSONRPCMessage[] = []
  transport.onmessage = (message) => received.push(message)
  await transport.start()
  const replies: Record<string, unknown>[] = []
  let pending = ''
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk
    const lines = pending.split('\n')
    pending = lines.pop()!
    for (const line of lines) replies.push(JSON.parse(line) as Record<string, unknown>)
  })
  return {stdin, transport, received, replies}
}

/** Lets the streams deliver what was written. */
function settle(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve)
  })
}

describe('JsonLinesServerTransport', () => {
  it('passes valid messages on and answers everything else', async () => {
    const {stdin, transport, received, replies} = await open()
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    stdin.write('not json\n')
    stdin.write('{"jsonrpc":"2.0","id":"b","method":"ping","params":7}\n')
    stdin.write('{"jsonrpc":"2.0","id":3,"result":"not an object"}\n') // a bad response: logged only
    await settle()
    expect(received).toEqual([{jsonrpc: '2.0', id: 1, method: 'ping'}])
    expect(replies).toEqual([
      {jsonrpc: '2.0', error: {code: -32_700, message: expect.stringMatching(/^Parse error: /)}},
      {jsonrpc: '2.0', id: 'b', error: {code: -32_600, message: expect.stringMatching(/^Invalid Request: /)}},
    ])
    await transport.close()
  })

  it('answers an oversized request by the id found at either end', async () => {
    const {stdin, transport, received, replies} = await open(100)
    const params = {code: 'x'.repeat(500)}
    stdin.write(`${JSON.stringify({method: 'tools/call', params, jsonrpc: '2.0', id: 41})}\n`)
    stdin.write(`${JSON.stringify({jsonrpc: '2.0', id: 'py', method: 'tools/call', params})}\n`)
    stdin.write(`${JSON.stringify({jsonrpc: '2.0', method: 'notifications/x', params})}\n`)
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    await settle()
    expect(replies.map((r) => [r.id, (r.error as {code: number}).code])).toEqual([
      [41, -32_600],
      ['py', -32_600],
      [undefined, -32_600],
    ])
    expect((replies[0]!.error as {message: string}).message).toMatch(
      /^message of 5\d\d bytes is over the 100-byte limit/,
    )
    expect(received).toEqual([{jsonrpc: '2.0', id: 2, method: 'ping'}])
    await transport.close()
  })
})
