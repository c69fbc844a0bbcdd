import {describe, expect, test} from 'vitest'

import {OutputCapture, TRUNCATION_MARKER, utf8SafeEnd} from './output-capture.js'

describe('OutputCapture', () => {
  test('keeps everything under the cap, across chunks', () => {
    const capture = new OutputCapture(100)
    capture.push(Buffer.from('héllo '))
    capture.push(Buffer.from('wörld\n'))
    expect(capture.truncated).toBe(false)
    expect(capture.text()).toBe('héllo wörld\n')
  })

  test('counts UTF-8 bytes and cuts on a character boundary before the marker', () => {
    const capture = new OutputCapture(10)
    // 'é' is 2 bytes: 5 fit exactly in 10 bytes; with an ASCII prefix the 10th byte splits one.
    capture.push(Buffer.from('a' + 'é'.repeat(20)))
    expect(capture.truncated).toBe(true)
    expect(capture.totalBytes).toBe(41)
    const text = capture.text()
    expect(text).toBe(`aéééé\n${TRUNCATION_MARKER}`)
    expect(text).not.toContain('\uFFFD')
  })

  test('a four-byte character cut in the middle is dropped whole', () => {
    const capture = new OutputCapture(5)
    capture.push(Buffer.from('ab😀cd'))
    expect(capture.text()).toBe(`ab\n${TRUNCATION_MARKER}`)
  })

  test('output that ends in a newline gets the marker on the next line', () => {
    const capture = new OutputCapture(4)
    capture.push(Buffer.from('abc\ndef'))
    expect(capture.text()).toBe(`abc\n${TRUNCATION_MARKER}`)
  })

  test('utf8SafeEnd leaves complete sequences alone', () => {
    expect(utf8SafeEnd(Buffer.from('aé'))).toBe(3)
    expect(utf8SafeEnd(Buffer.from('aé').subarray(0, 2))).toBe(1)
    expect(utf8SafeEnd(Buffer.from('€').subarray(0, 2))).toBe(0)
    expect(utf8SafeEnd(Buffer.alloc(0))).toBe(0)
  })
})
