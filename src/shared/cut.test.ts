// @tier unit
import {describe, expect, it} from 'vitest'

import {cutAfter, cutWithin, ELLIPSIS, headOf} from './cut.js'

const FACE = '\u{1F600}' // two UTF-16 units: a surrogate pair

describe('cutting a text to a bound', () => {
  it('leaves a text within its bound alone', () => {
    expect(cutWithin('abc', 3)).toBe('abc')
    expect(cutAfter('abc', 3)).toBe('abc')
  })

  it('cuts within the bound, or after it, with one ellipsis', () => {
    expect(cutWithin('abcdef', 4)).toBe('abc…')
    expect(cutAfter('abcdef', 4)).toBe('abcd…')
    expect(ELLIPSIS).toBe('…')
  })

  it('never splits a surrogate pair: the half is dropped with its pair', () => {
    // 'ab' then the face: units 0-1 are a, b; units 2-3 the pair.
    const text = `ab${FACE}cd`
    expect(headOf(text, 3)).toBe('ab')
    expect(cutAfter(text, 3)).toBe('ab…')
    expect(cutWithin(text, 4)).toBe('ab…')
    expect(headOf(text, 4)).toBe(`ab${FACE}`)
    for (let max = 1; max < text.length; max++) {
      for (const cut of [headOf(text, max), cutAfter(text, max), cutWithin(text, max)]) {
        expect(cut, `max ${max}`).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
        expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut)
      }
    }
  })

  it('keeps its bound in UTF-16 units', () => {
    const text = FACE.repeat(100)
    for (const max of [1, 2, 3, 50, 51]) {
      expect(cutWithin(text, max).length).toBeLessThanOrEqual(max)
      expect(headOf(text, max).length).toBeLessThanOrEqual(max)
    }
    expect(headOf(text, 0)).toBe('')
  })
})
