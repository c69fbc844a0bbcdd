import {describe, expect, test} from 'vitest'

import {EndMarkedStream, OutputCapture, TRUNCATION_MARKER, utf8SafeEnd} from './output-capture.js'

describe('output capture', () => {
  describe('OutputCapture', () => {
    test('keeps everything under the cap, across chunks', () => {
      const capture = new OutputCapture(100)
      capture.write(Buffer.from('héllo '))
      capture.write(Buffer.from('wörld\n'))
      expect(capture.truncated).toBe(false)
      expect(capture.text()).toBe('héllo wörld\n')
    })

    test('counts UTF-8 bytes and cuts on a character boundary before the marker', () => {
      const capture = new OutputCapture(10)
      // 'é' is 2 bytes: 5 fit exactly in 10 bytes; with an ASCII prefix the 10th byte splits one.
      capture.write(Buffer.from('a' + 'é'.repeat(20)))
      expect(capture.truncated).toBe(true)
      expect(capture.totalBytes).toBe(41)
      const text = capture.text()
      expect(text).toBe(`aéééé\n${TRUNCATION_MARKER}`)
      expect(text).not.toContain('\uFFFD')
    })

    test('a four-byte character cut in the middle is dropped whole', () => {
      const capture = new OutputCapture(5)
      capture.write(Buffer.from('ab😀cd'))
      expect(capture.text()).toBe(`ab\n${TRUNCATION_MARKER}`)
    })

    test('output that ends in a newline gets the marker on the next line', () => {
      const capture = new OutputCapture(4)
      capture.write(Buffer.from('abc\ndef'))
      expect(capture.text()).toBe(`abc\n${TRUNCATION_MARKER}`)
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
