// @tier unit
import {describe, expect, it} from 'vitest'

import {randomHex} from './random-hex.js'

describe('randomHex', () => {
  it('gives the asked number of bytes as hex, never the same twice across refills', () => {
    const seen = new Set<string>()
    // 16 bytes each: 2,000 of them refill the 4 KiB batch several times.
    for (let i = 0; i < 2000; i++) {
      const hex = randomHex(16)
      expect(hex).toMatch(/^[0-9a-f]{32}$/)
      seen.add(hex)
    }
    expect(seen.size).toBe(2000)
    expect(randomHex(12)).toHaveLength(24)
  })

  it('refuses a size it cannot serve', () => {
    expect(() => randomHex(0)).toThrow(RangeError)
    expect(() => randomHex(257)).toThrow(RangeError)
    expect(() => randomHex(1.5)).toThrow(RangeError)
  })
})
