// @tier unit
import {describe, expect, test} from 'vitest'

import {type FramedLine, LineFramer, LineTooLongError} from './line-framing.js'

function push<T extends Buffer | string>(framer: LineFramer<T>, ...chunks: string[]): FramedLine<T>[] {
  const lines: FramedLine<T>[] = []
  for (const chunk of chunks) framer.push(Buffer.from(chunk), (line) => lines.push(line))
  return lines
}

function split(framer: LineFramer<Buffer>, ...chunks: string[]): string[] {
  return push(framer, ...chunks).map((framed) => (framed.kind === 'line' ? framed.line.toString() : '?'))
}

describe('LineFramer', () => {
  describe('bytes, oversize: fail (a child channel)', () => {
    test('joins lines split across chunks and splits several lines in one chunk', () => {
      const framer = LineFramer.bytes(100, 'fail')
      expect(split(framer, '{"a"', ':1}\n{"b":2}\n{"c"', '', ':3}\n')).toEqual([
        '{"a":1}',
        '{"b":2}',
        '{"c":3}',
      ])
    })

    test('refuses a line over the bound, even before its newline arrives', () => {
      const framer = LineFramer.bytes(10, 'fail')
      expect(() => split(framer, '12345', '678901')).toThrow(LineTooLongError)
      expect(() => split(LineFramer.bytes(10, 'fail'), '12345678901\n')).toThrow(/over 10 bytes/)
      expect(split(LineFramer.bytes(10, 'fail'), '1234567890\n')).toEqual(['1234567890'])
    })

    test('delivers the lines before an oversized one in the same chunk, then refuses', () => {
      const lines: string[] = []
      const framer = LineFramer.bytes(10, 'fail')
      const collect = (framed: FramedLine<Buffer>): void => {
        if (framed.kind === 'line') lines.push(framed.line.toString())
      }
      expect(() => framer.push(Buffer.from('{"a":1}\n12345678901\n'), collect)).toThrow(LineTooLongError)
      expect(lines).toEqual(['{"a":1}'])
    })

    test('keeps the bytes as sent (a trailing \\r included)', () => {
      expect(split(LineFramer.bytes(100, 'fail'), '{"a":1}\r\n')).toEqual(['{"a":1}\r'])
    })
  })

  describe('text, oversize: skip (stdin, a stdio server)', () => {
    test('joins lines split across chunks and keeps the rest for later', () => {
      const framer = LineFramer.text(100, 'skip')
      expect(push(framer, '{"a"')).toEqual([])
      expect(push(framer, ':1}\n{"b":2}\r\n{"c"')).toEqual([
        {kind: 'line', line: '{"a":1}'},
        {kind: 'line', line: '{"b":2}'},
      ])
      expect(push(framer, ':3}\n')).toEqual([{kind: 'line', line: '{"c":3}'}])
    })

    test('counts and drops a line over the limit, keeping its two ends, then goes on', () => {
      const framer = LineFramer.text(10, 'skip')
      expect(push(framer, '{"id":"s",')).toEqual([])
      expect(push(framer, 'x'.repeat(50))).toEqual([])
      const [oversized, next] = push(framer, '"end":1}\n{"ok":1}\n')
      expect(oversized).toEqual({
        kind: 'oversized',
        bytes: 68,
        // Head and tail are the first and the last 4 KiB: here, the whole line.
        head: `{"id":"s",${'x'.repeat(50)}"end":1}`,
        tail: `{"id":"s",${'x'.repeat(50)}"end":1}`,
      })
      expect(next).toEqual({kind: 'line', line: '{"ok":1}'})
    })

    test('keeps only the two ends of a huge line, whatever it is split into', () => {
      const framer = LineFramer.text(1000, 'skip')
      const line = `[${'a'.repeat(5000)}${'b'.repeat(5000)}${'c'.repeat(5000)}]`
      const chunks = line.match(/.{1,333}/g)!
      const framed = push(framer, ...chunks, '\n')
      expect(framed).toEqual([
        {kind: 'oversized', bytes: line.length, head: line.slice(0, 4096), tail: line.slice(-4096)},
      ])
    })

    test('keeps multi-byte characters split between chunks intact', () => {
      const framer = LineFramer.text(100, 'skip')
      const line = Buffer.from('é€😀\n')
      const lines: FramedLine<string>[] = []
      for (let at = 0; at < line.length; at++) framer.push(line.subarray(at, at + 1), (l) => lines.push(l))
      expect(lines).toEqual([{kind: 'line', line: 'é€😀'}])
    })

    test('at the end of the stream, a last line without its newline is delivered; clear forgets it', () => {
      const framer = LineFramer.text(100, 'skip')
      expect(push(framer, 'one\ntwo')).toEqual([{kind: 'line', line: 'one'}])
      const last: FramedLine<string>[] = []
      framer.end((line) => last.push(line))
      expect(last).toEqual([{kind: 'line', line: 'two'}])
      push(framer, 'three')
      framer.clear()
      expect(push(framer, 'four\n')).toEqual([{kind: 'line', line: 'four'}])
    })
  })
})
