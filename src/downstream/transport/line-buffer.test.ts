import {ReadBuffer} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {describe, expect, it} from 'vitest'

import {silentLogger} from '../../shared/log.js'
import {LineBuffer, useLinearFraming} from './line-buffer.js'
import {OVERSIZED_MESSAGE_CODE} from './oversized-answer.js'
import {createTransport} from './transports.js'

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

  it('answers a result over the limit as an error to its own request, and goes on', () => {
    const dropped: unknown[] = []
    const buffer = new LineBuffer(100, (line, id) => dropped.push([line.bytes, id]))
    const big = (id: number, order: 'ts' | 'py') =>
      order === 'ts'
        ? `{"result":{"content":[{"type":"text","text":"${'x'.repeat(300)}"}]},"jsonrpc":"2.0","id":${id}}`
        : `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${'x'.repeat(300)}"}]}}`
    buffer.append(
      Buffer.from(`${message(1)}
${big(2, 'ts').slice(0, 50)}`),
    )
    for (const part of big(2, 'ts')
      .slice(50)
      .match(/.{1,7}/g)!)
      buffer.append(Buffer.from(part))
    buffer.append(
      Buffer.from(`
${big(3, 'py')}
${message(4)}
`),
    )
    expect(buffer.readMessage()).toMatchObject({id: 1, result: {}})
    for (const [id, order] of [
      [2, 'ts'],
      [3, 'py'],
    ] as const) {
      const bytes = big(id, order).length
      expect(buffer.readMessage()).toEqual({
        jsonrpc: '2.0',
        id,
        error: {
          code: OVERSIZED_MESSAGE_CODE,
          message: `message of ${bytes} bytes is over the 100-byte limit`,
          data: {oversizedBytes: bytes},
        },
      })
    }
    expect(buffer.readMessage()).toMatchObject({id: 4, result: {}})
    expect(buffer.readMessage()).toBeNull()
    expect(dropped).toEqual([])
  })

  it('drops a request or notification over the limit, telling onDropped the id to refuse', () => {
    const dropped: unknown[] = []
    const buffer = new LineBuffer(50, (line, id) => dropped.push([line.bytes, id]))
    const request = `{"method":"sampling/createMessage","params":{"x":"${'y'.repeat(100)}"},"jsonrpc":"2.0","id":7}`
    const notification = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'z'.repeat(100)}"}}`
    // A response whose result quotes "method" in a nested object is still a response.
    const nested = `{"jsonrpc":"2.0","id":8,"result":{"method":"x","text":"${'w'.repeat(100)}"}}`
    buffer.append(
      Buffer.from(`${request}
${notification}
${nested}
`),
    )
    expect(buffer.readMessage()).toMatchObject({id: 8, error: {code: OVERSIZED_MESSAGE_CODE}})
    expect(dropped).toEqual([
      [request.length, 7],
      [notification.length, undefined],
    ])
  })

  it('throws for JSON that is not a JSON-RPC message', () => {
    const buffer = new LineBuffer()
    buffer.append(Buffer.from('{"hello":"world"}\n'))
    expect(() => buffer.readMessage()).toThrow()
  })
})

describe('useLinearFraming', () => {
  const server = {name: 'x', transport: 'stdio' as const, command: process.execPath, args: [], env: {}}

  it("replaces the SDK's private read buffer of every stdio transport (fails if the SDK renames _readBuffer)", async () => {
    const warnings: string[] = []
    const logger = {...silentLogger, warn: (line: string) => warnings.push(line)}
    const transport = createTransport(server, {logger})
    expect(transport).toBeInstanceOf(StdioClientTransport)
    expect((transport as unknown as {_readBuffer: unknown})._readBuffer).toBeInstanceOf(LineBuffer)
    expect(warnings).toEqual([])
    await transport.close()
  })

  it('says once, not per connection, when the field is gone', () => {
    const warnings: string[] = []
    const logger = {...silentLogger, warn: (line: string) => warnings.push(line)}
    const renamed = () => ({_input: new ReadBuffer()}) as unknown as StdioClientTransport
    expect(useLinearFraming(renamed(), new LineBuffer(), logger)).toBe(false)
    expect(useLinearFraming(renamed(), new LineBuffer(), logger)).toBe(false)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/no _readBuffer to replace/)
  })
})
