import {describe, expect, it} from 'vitest'

import {LineBuffer, minimalEnvironment} from './transports.js'

describe('minimalEnvironment', () => {
  it('keeps only the safe variables, and no shell functions', () => {
    const env = minimalEnvironment({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      AWS_SECRET_ACCESS_KEY: 'secret',
      GITHUB_TOKEN: 'token',
      PTC_MCP_CONFIG: '/etc/ptc.yaml',
      SHELL: '() { evil; }',
    })
    expect(env).toEqual({PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8'})
  })
})

function message(id: number): string {
  return JSON.stringify({jsonrpc: '2.0', id, result: {}})
}

describe('LineBuffer', () => {
  it('reassembles a message split over many chunks', () => {
    const buffer = new LineBuffer()
    const line = Buffer.from(`${message(1)}\n`)
    for (let i = 0; i < line.length; i += 3) buffer.append(line.subarray(i, i + 3))
    expect(buffer.readMessage()).toEqual({jsonrpc: '2.0', id: 1, result: {}})
    expect(buffer.readMessage()).toBeNull()
  })

  it('reads several messages from one chunk, skipping lines that are not JSON and CRLF endings', () => {
    const buffer = new LineBuffer()
    buffer.append(Buffer.from(`${message(1)}\r\nnot json\n${message(2)}\n${message(3).slice(0, 5)}`))
    expect(buffer.readMessage()).toMatchObject({id: 1})
    expect(buffer.readMessage()).toMatchObject({id: 2})
    expect(buffer.readMessage()).toBeNull()
    buffer.append(Buffer.from(`${message(3).slice(5)}\n`))
    expect(buffer.readMessage()).toMatchObject({id: 3})
  })

  it('keeps multi-byte characters split between chunks intact', () => {
    const buffer = new LineBuffer()
    const line = Buffer.from(`${JSON.stringify({jsonrpc: '2.0', method: 'n', params: {text: 'é€😀'}})}\n`)
    const cut = line.indexOf(Buffer.from('€')) + 1
    buffer.append(line.subarray(0, cut))
    buffer.append(line.subarray(cut))
    expect(buffer.readMessage()).toMatchObject({params: {text: 'é€😀'}})
  })

  it('throws when one message outgrows the limit', () => {
    const buffer = new LineBuffer(10)
    buffer.append(Buffer.from('{"a":1}\n'))
    expect(() => buffer.append(Buffer.from('x'.repeat(11)))).toThrow(/exceeded maximum size of 10 bytes/)
  })

  it('throws for JSON that is not a JSON-RPC message', () => {
    const buffer = new LineBuffer()
    buffer.append(Buffer.from('{"hello":"world"}\n'))
    expect(() => buffer.readMessage()).toThrow()
  })
})
