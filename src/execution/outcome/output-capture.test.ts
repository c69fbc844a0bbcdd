import {describe, expect, test} from 'vitest'

import {EndMarkedStream, omittedMarker, OutputCapture, utf8SafeEnd} from './output-capture.js'

describe('output capture', () => {
  describe('OutputCapture', () => {
    test('keeps everything under the cap, across chunks', () => {
      const capture = new OutputCapture(100)
      capture.write(Buffer.from('héllo '))
      capture.write(Buffer.from('wörld\n'))
      expect(capture.truncated).toBe(false)
      expect(capture.text()).toBe('héllo wörld\n')
    })

    test('over the cap, keeps the head and the tail, cut on character boundaries, and counts the rest', () => {
      const capture = new OutputCapture(10)
      capture.write(Buffer.from('a' + 'é'.repeat(20) + 'z'))
      expect(capture.truncated).toBe(true)
      expect(capture.totalBytes).toBe(42)
      const text = capture.text()
      // Head: 5 bytes ('a' + 2 × é); tail: 5 bytes, the first a broken é (dropped), then 2 × é + 'z'.
      expect(text).toBe(`${omittedMarker(32)}\naéé\n${omittedMarker(32)}\nééz`)
      expect(text).not.toContain('\uFFFD')
    })

    test('cuts at line boundaries where one is near, across many chunks', () => {
      const capture = new OutputCapture(400)
      for (let i = 0; i < 1000; i++) capture.write(Buffer.from(`line ${i}\n`))
      const text = capture.text()
      const [first, head, tail] = text.split(/\.\.\. \[\d+ bytes omitted\]\n/)
      expect(first).toBe('')
      expect(head).toMatch(/^line 0\n(line \d+\n)+$/)
      expect(tail).toMatch(/^(line \d+\n)+line 999\n$/)
      const omitted = Number(/\[(\d+) bytes omitted\]/.exec(text)![1])
      expect(omitted + Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBe(capture.totalBytes)
      expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBeLessThanOrEqual(400)
      expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBeGreaterThan(300)
    })

    test('a single huge line is cut mid-line rather than lost', () => {
      const capture = new OutputCapture(100)
      capture.write(Buffer.from(`start${'x'.repeat(10_000)}end`))
      expect(capture.text()).toMatch(
        /^\.\.\. \[9908 bytes omitted\]\nstartx{45}\n\.\.\. \[9908 bytes omitted\]\nx{47}end$/,
      )
    })

    test('utf8SafeEnd leaves complete sequences alone', () => {
      expect(utf8SafeEnd(Buffer.from('aé'))).toBe(3)
      expect(utf8SafeEnd(Buffer.from('aé').subarray(0, 2))).toBe(1)
      expect(utf8SafeEnd(Buffer.from('€').subarray(0, 2))).toBe(0)
      expect(utf8SafeEnd(Buffer.alloc(0))).toBe(0)
    })
  })

  describe('EndMarkedStream', () => {
    const marker = Buffer.from('<END>')
    function stream() {
      const seen: Buffer[] = []
      const watched = new EndMarkedStream(marker, (chunk) => seen.push(Buffer.from(chunk)))
      return {watched, text: () => Buffer.concat(seen).toString()}
    }

    test('a stream ending with the marker is complete, and the marker is dropped', () => {
      const {watched, text} = stream()
      watched.write(Buffer.from('hello\nwor'))
      expect(watched.endsWithMarker).toBe(false)
      watched.write(Buffer.from('ld\n<E'))
      watched.write(Buffer.from('N'))
      watched.write(Buffer.from('D>'))
      expect(watched.endsWithMarker).toBe(true)
      watched.flush()
      expect(text()).toBe('hello\nworld\n')
    })

    test('a marker followed by more output is just output, and nothing is lost at EOF', () => {
      const {watched, text} = stream()
      watched.write(Buffer.from('a<END>'))
      watched.write(Buffer.from('b'))
      expect(watched.endsWithMarker).toBe(false)
      watched.flush()
      expect(text()).toBe('a<END>b')
    })

    test('short streams without the marker come through whole', () => {
      const {watched, text} = stream()
      watched.write(Buffer.from('ab'))
      watched.write(Buffer.from(''))
      watched.flush()
      expect(text()).toBe('ab')
    })
  })
})
