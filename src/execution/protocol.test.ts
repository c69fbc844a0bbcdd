import {describe, expect, test} from 'vitest'

import {LineSplitter, parseChildMessage, ProtocolError} from './protocol.js'

function split(splitter: LineSplitter, ...chunks: string[]): string[] {
  const lines: string[] = []
  for (const chunk of chunks) splitter.push(Buffer.from(chunk), (line) => lines.push(line.toString()))
  return lines
}

describe('child protocol', () => {
  describe('LineSplitter', () => {
    test('joins lines split across chunks and splits several lines in one chunk', () => {
      const splitter = new LineSplitter(100)
      expect(split(splitter, '{"a"', ':1}\n{"b":2}\n{"c"', '', ':3}\n')).toEqual([
        '{"a":1}',
        '{"b":2}',
        '{"c":3}',
      ])
    })

    test('refuses a line over the bound, even before its newline arrives', () => {
      const splitter = new LineSplitter(10)
      expect(() => split(splitter, '12345', '678901')).toThrow(ProtocolError)
      expect(() => split(new LineSplitter(10), '12345678901\n')).toThrow(/over 10 bytes/)
      expect(split(new LineSplitter(10), '1234567890\n')).toEqual(['1234567890'])
    })
  })

  describe('parseChildMessage', () => {
    const parse = (value: unknown) => parseChildMessage(Buffer.from(JSON.stringify(value)))

    test('accepts the messages of the protocol', () => {
      expect(parse({type: 'call', id: 1, tool: 'mcp__a__b', args: {x: 1}})).toEqual({
        type: 'call',
        id: 1,
        tool: 'mcp__a__b',
        args: {x: 1},
      })
      expect(parse({type: 'helper', id: 2, name: 'server_status', args: {}})).toMatchObject({
        name: 'server_status',
      })
      expect(parse({type: 'cancel', id: 3})).toEqual({type: 'cancel', id: 3})
      expect(parse({type: 'done', ok: false, error: 'x', has_result: true, result: [1]})).toEqual({
        type: 'done',
        ok: false,
        error: 'x',
        hasResult: true,
        result: [1],
      })
      expect(parse({type: 'ready', confine: {tier: 't'}})).toEqual({type: 'ready', confine: {tier: 't'}})
    })

    test.each([
      ['not JSON', Buffer.from('{"type": "done"')],
      ['not an object', Buffer.from('[1]')],
      ['an unknown type', Buffer.from('{"type":"exec"}')],
      ['a call without id', Buffer.from('{"type":"call","tool":"t","args":{}}')],
      ['a call with a fractional id', Buffer.from('{"type":"call","id":1.5,"tool":"t","args":{}}')],
      ['a call with list args', Buffer.from('{"type":"call","id":1,"tool":"t","args":[]}')],
      ['an unknown helper', Buffer.from('{"type":"helper","id":1,"name":"eval","args":{}}')],
      ['a done without ok', Buffer.from('{"type":"done","error":null}')],
      ['a done with a non-string error', Buffer.from('{"type":"done","ok":false,"error":3}')],
    ])('refuses %s', (_name, line) => {
      expect(() => parseChildMessage(line)).toThrow(ProtocolError)
    })
  })
})
