// @tier unit
import {describe, expect, it} from 'vitest'

import {jsonLength, shortenJson} from './shorten-json.js'

const json = (value: unknown) => JSON.stringify(value)

describe('shortenJson', () => {
  it('returns a value whose JSON fits as it is', () => {
    const value = {path: '/tmp/a.txt', n: 3, flags: [true, null]}
    expect(shortenJson(value, 200)).toBe(value)
  })

  it('keeps small fields whole and cuts the large one, start and end, whatever the order', () => {
    const content = `${'x'.repeat(1_000_000)}END`
    for (const value of [
      {content, path: '/tmp/notes/file.txt'},
      {path: '/tmp/notes/file.txt', content},
    ]) {
      const short = shortenJson(value, 200) as Record<string, string>
      expect(json(short).length).toBeLessThanOrEqual(200)
      expect(short.path).toBe('/tmp/notes/file.txt')
      expect(short.content).toMatch(/^x+…x*END$/)
      expect(json(short).length).toBeGreaterThan(150)
    }
  })

  it('counts the items and keys left out', () => {
    const items = Array.from({length: 1000}, (_, i) => i)
    const short = shortenJson({items}, 100) as {items: unknown[]}
    expect(json(short).length).toBeLessThanOrEqual(100)
    expect(short.items.at(-1)).toMatch(/^…\(\+\d+ items\)$/)
    const keys = Object.fromEntries(Array.from({length: 500}, (_, i) => [`key${i}`, i]))
    const shortKeys = shortenJson(keys, 120) as Record<string, unknown>
    expect(json(shortKeys).length).toBeLessThanOrEqual(120)
    expect(shortKeys['…']).toMatch(/^\+\d+ keys$/)
    expect(shortKeys.key0).toBe(0)
  })

  it('keeps as many small items of a long array as fit, not just the first', () => {
    for (const items of [
      Array.from({length: 1000}, (_, i) => ({i})),
      Array.from({length: 1000}, (_, i) => `name-${i}`),
    ]) {
      const short = shortenJson({items}, 200) as {items: unknown[]}
      expect(json(short).length).toBeLessThanOrEqual(200)
      expect(json(short).length).toBeGreaterThan(150)
      expect(short.items.slice(0, 3)).toEqual(items.slice(0, 3))
      expect(short.items.at(-1)).toBe(`…(+${items.length - short.items.length + 1} items)`)
    }
  })

  it('looks at no more of a huge array than the bound can hold', () => {
    let reads = 0
    const items = new Proxy(
      Array.from({length: 1_000_000}, (_, i) => i),
      {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++
          return Reflect.get(target, key, receiver) as unknown
        },
      },
    )
    const short = shortenJson({items}, 200) as {items: unknown[]}
    expect(short.items.at(-1)).toMatch(/^…\(\+\d+ items\)$/)
    expect(reads).toBeLessThan(10 * 200)
  })

  it('stays within the bound for escapes, surrogate pairs, deep nesting and huge keys', () => {
    const hostile: unknown[] = [
      {q: '"\\\n'.repeat(10_000)},
      {emoji: '😀'.repeat(5000)},
      {[`k${'y'.repeat(100_000)}`]: 1, b: 2},
      JSON.parse(`${'['.repeat(5000)}1${']'.repeat(5000)}`),
      {a: 1e300, b: -1.234_567_890_123_4e-300, c: Array.from({length: 100}, () => ({x: 'yy'}))},
    ]
    for (const value of hostile) {
      for (const limit of [3, 10, 50, 200]) {
        const short = shortenJson(value, limit)
        const text = json(short)
        expect(text.length, text).toBeLessThanOrEqual(limit)
        expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
      }
    }
  })

  it('measures JSON length exactly up to the limit', () => {
    for (const value of [{a: [1, 'b', null, true]}, [], {}, 'é"\n', [{}, []], -0.5]) {
      expect(jsonLength(value, 1000)).toBe(json(value).length)
    }
    expect(jsonLength('x'.repeat(500), 100)).toBeGreaterThan(100)
  })
})
