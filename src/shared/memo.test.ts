// @tier unit
import {describe, expect, it} from 'vitest'

import {Memo, MemoMap} from './memo.js'

describe('Memo', () => {
  it('shares one promise while it holds, and makes a new one after a failure', async () => {
    let made = 0
    let fail = true
    const memo = new Memo(async () => {
      made++
      if (fail) throw new Error(`attempt ${made} failed`)
      return made
    })
    expect(memo.current).toBeUndefined()
    const first = memo.get()
    expect(memo.get()).toBe(first)
    await expect(first).rejects.toThrow('attempt 1 failed')
    expect(memo.current).toBeUndefined()
    fail = false
    await expect(memo.get()).resolves.toBe(2)
    await expect(memo.get()).resolves.toBe(2)
    expect(made).toBe(2)
  })
})

describe("Memo with forget: 'settled'", () => {
  it('shares one run among the calls made while it runs, and starts a new run after it settles', async () => {
    let runs = 0
    let finish!: () => void
    const memo = new Memo(
      () =>
        new Promise<number>((resolve) => {
          runs++
          finish = () => resolve(runs)
        }),
      {forget: 'settled'},
    )
    const first = memo.get()
    expect(memo.get()).toBe(first)
    finish()
    await expect(first).resolves.toBe(1)
    expect(memo.current).toBeUndefined()
    const second = memo.get()
    expect(second).not.toBe(first)
    finish()
    await expect(second).resolves.toBe(2)
    expect(runs).toBe(2)
  })
})

describe('MemoMap', () => {
  it('keeps a promise per key and forgets only the key that failed', async () => {
    const made: string[] = []
    const memo = new MemoMap<string, string>()
    const make = (key: string) => async () => {
      made.push(key)
      if (key === 'bad') throw new Error('no')
      return key.toUpperCase()
    }
    await expect(memo.get('a', make('a'))).resolves.toBe('A')
    await expect(memo.get('bad', make('bad'))).rejects.toThrow('no')
    await expect(memo.get('a', make('a'))).resolves.toBe('A')
    await expect(memo.get('bad', make('bad'))).rejects.toThrow('no')
    expect(made).toEqual(['a', 'bad', 'bad'])
  })
})
