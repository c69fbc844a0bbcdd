import {describe, expect, test} from 'vitest'

import {boundedJson, cutArgs, cutText} from './trace-cut.js'

describe('what the trace keeps of a call', () => {
  test('boundedJson is JSON.stringify up to the bound, and says whether it is all', () => {
    const value = {a: [1, 'two', null, true, {b: 2.5}], c: 'x"y', skipped: undefined}
    expect(boundedJson(value, 1000)).toEqual({text: JSON.stringify(value), complete: true})
    const exact = JSON.stringify(value).length
    expect(boundedJson(value, exact)).toEqual({text: JSON.stringify(value), complete: true})
    expect(boundedJson(value, exact - 1)).toEqual({
      text: JSON.stringify(value).slice(0, exact - 1),
      complete: false,
    })
  })

  test('boundedJson stops early on a huge value: a 5,000,000-item list costs no more than its head', () => {
    const huge = Array.from({length: 5_000_000}, () => ({}))
    const {text, complete} = boundedJson(huge, 50)
    expect(complete).toBe(false)
    expect(text).toBe(`[${'{},'.repeat(16)}{`)
    expect(boundedJson('x'.repeat(10_000_000), 10)).toEqual({text: '"xxxxxxxxx', complete: false})
  })

  test('small arguments are kept as they are (the same object)', () => {
    const args = {ticker: 'ACME', limit: 4}
    expect(cutArgs(args)).toBe(args)
  })

  test('large arguments keep their keys, small values whole and the head of large ones', () => {
    const args = {
      a: Array.from({length: 5_000_000}, () => ({})),
      text: 'y'.repeat(5000),
      n: 3,
    }
    const cut = cutArgs(args, 300)
    expect(Object.keys(cut)).toEqual(['a', 'text', 'n'])
    expect(cut.n).toBe(3)
    expect(cut.text).toBe(`${'y'.repeat(100)}…`)
    expect(cut.a).toMatch(/^\[\{\},\{\},.*…$/)
    expect(JSON.stringify(cut).length).toBeLessThan(400)
  })

  test('many arguments: the first 20 are listed, the rest counted; huge keys are cut too', () => {
    const args = Object.fromEntries(Array.from({length: 1000}, (_, i) => [`k${i}`, 'v'.repeat(10)]))
    const cut = cutArgs(args, 500)
    expect(Object.keys(cut)).toHaveLength(21)
    expect(cut['…']).toBe('980 more arguments')
    const key = 'k'.repeat(1_000_000)
    expect(Object.keys(cutArgs({[key]: 1}, 100))).toEqual([`${'k'.repeat(100)}…`])
  })

  test('cutText keeps short text and the head of long text', () => {
    expect(cutText('abc', 3)).toBe('abc')
    expect(cutText('abcd', 3)).toBe('abc…')
  })
})
