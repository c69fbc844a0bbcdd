// @tier unit
import {describe, expect, it} from 'vitest'

import {ConfigError} from '../shared/errors.js'
import {MAX_TIMER_SECONDS} from '../shared/limits.js'
import {configJsonSchema} from './json-schema.js'
import {parseConfigText} from './load.js'

/** Where each duration key lives, as a config that sets it to `value`. */
const DURATION_KEYS: Record<string, (value: number) => string> = {
  connect_timeout_seconds: (v) => `connect_timeout_seconds: ${v}\n`,
  'servers[0].connect_timeout_seconds': (v) =>
    `servers:\n  - {name: a, command: x, connect_timeout_seconds: ${v}}\n`,
  'servers[0].connect_timeout_seconds (http)': (v) =>
    `servers:\n  - {name: a, transport: http, url: "https://x.example", connect_timeout_seconds: ${v}}\n`,
  'execution.timeout_seconds': (v) => `execution:\n  timeout_seconds: ${v}\n`,
  'execution.tool_call_timeout_seconds': (v) => `execution:\n  tool_call_timeout_seconds: ${v}\n`,
  'permissions.approval_timeout_seconds': (v) => `permissions:\n  approval_timeout_seconds: ${v}\n`,
  'gateway.state_idle_seconds': (v) => `gateway:\n  state_idle_seconds: ${v}\n`,
  'gateway.shutdown_seconds': (v) => `gateway:\n  shutdown_seconds: ${v}\n`,
}

/** Every `properties` object of the JSON Schema, at any depth (defaults left out). */
function propertyMaps(
  schema: unknown,
  into: Array<Record<string, unknown>> = [],
): Array<Record<string, unknown>> {
  if (typeof schema !== 'object' || schema === null) return into
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && typeof value === 'object' && value !== null)
      into.push(value as Record<string, unknown>)
    if (key !== 'default') propertyMaps(value, into)
  }
  return into
}

/** Every `*_seconds` property the JSON Schema declares, with its `maximum`. */
const durationMaxima = (schema: unknown): Array<[string, unknown]> =>
  propertyMaps(schema).flatMap((properties) =>
    Object.entries(properties)
      .filter(([name]) => name.endsWith('_seconds'))
      .map(([name, property]): [string, unknown] => [name, (property as {maximum?: number}).maximum]),
  )

function errorLines(text: string): string[] {
  try {
    parseConfigText(text)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim())
  }

  throw new Error(`no config error for ${text}`)
}

describe('duration keys (SPEC §3, §15: bounded to what a timer holds)', () => {
  it('a timer holds the maximum: it does not fire at once as a longer delay does', async () => {
    expect(MAX_TIMER_SECONDS * 1000).toBeLessThanOrEqual(2 ** 31 - 1)
    const fired = (ms: number) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), ms)
        setTimeout(() => {
          clearTimeout(timer)
          resolve(false)
        }, 50)
      })
    expect(await fired(MAX_TIMER_SECONDS * 1000)).toBe(false)
    // What the bound prevents: Node fires an overflowing delay after 1 ms (TimeoutOverflowWarning).
    expect(await fired(3_000_000 * 1000)).toBe(true)
  })

  it('every *_seconds key in the schema is bounded to MAX_TIMER_SECONDS, and each is tested below', () => {
    const maxima = durationMaxima(configJsonSchema())
    expect(maxima.length).toBeGreaterThanOrEqual(5)
    for (const [name, maximum] of maxima) expect({name, maximum}).toEqual({name, maximum: MAX_TIMER_SECONDS})
    const tested = new Set(Object.keys(DURATION_KEYS).map((path) => /(\w+)(?: \(\w+\))?$/.exec(path)?.[1]))
    for (const [name] of maxima) expect(tested).toContain(name)
  })

  it.each(Object.entries(DURATION_KEYS))(
    '%s: 3000000 is a config error naming the key and its maximum',
    (path, text) => {
      const key = path.replace(/ \(\w+\)$/, '')
      expect(errorLines(text(3_000_000))).toEqual([
        `${key}: must be <= 2147483 (seconds: the longest a timer can wait, about 24.8 days)`,
      ])
    },
  )

  it.each(Object.entries(DURATION_KEYS))('%s: the maximum itself is accepted', (_, text) => {
    expect(() => parseConfigText(text(MAX_TIMER_SECONDS))).not.toThrow()
  })
})
