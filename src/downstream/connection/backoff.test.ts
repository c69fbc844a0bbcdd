import {describe, expect, it} from 'vitest'

import {DEFAULT_BACKOFF, retryDelay, streakAfterLoss} from './backoff.js'

describe('retryDelay', () => {
  it('doubles from the initial delay up to the maximum, within ±20 %', () => {
    const low = () => 0
    const high = () => 0.999_999
    expect(retryDelay(0, DEFAULT_BACKOFF, low)).toBe(800)
    expect(retryDelay(0, DEFAULT_BACKOFF, high)).toBe(1200)
    expect(retryDelay(3, DEFAULT_BACKOFF, low)).toBe(6400)
    expect(retryDelay(10, DEFAULT_BACKOFF, low)).toBe(48_000)
    // Jitter never goes over the maximum, and a huge streak does not overflow.
    expect(retryDelay(10, DEFAULT_BACKOFF, high)).toBe(60_000)
    expect(retryDelay(10_000, {initialMs: 5, maxMs: 100}, high)).toBe(100)
  })
})

describe('streakAfterLoss', () => {
  it('resets after a connection that lasted the maximum delay, keeps growing after one that died at once', () => {
    expect(streakAfterLoss(4, 60_000, DEFAULT_BACKOFF)).toBe(0)
    expect(streakAfterLoss(4, 59_999, DEFAULT_BACKOFF)).toBe(4)
  })
})
