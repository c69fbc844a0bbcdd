// @tier unit
import {describe, expect, it} from 'vitest'

import {silentLogger} from '../shared/log.js'
import {MemoryStartCounter, PrincipalLimits, type StartCounter} from './principal-limits.js'

const limits = (perMinute = 100) =>
  new PrincipalLimits(
    {max_concurrent_programs: 2, programs_per_minute: perMinute},
    new MemoryStartCounter(),
    silentLogger,
  )

describe('PrincipalLimits', () => {
  it("holds a slot per program until release; a principal's limit is not another's", async () => {
    const gate = limits()
    expect(await gate.admit('alice')).toBeUndefined()
    expect(await gate.admit('alice')).toBeUndefined()
    expect(await gate.admit('alice')).toMatch(
      /^PrincipalLimitError: you already have 2 programs running on this gateway, the most allowed \(gateway\.per_principal\.max_concurrent_programs: 2\); nothing ran\./,
    )
    expect(await gate.admit('bob')).toBeUndefined()
    gate.release('alice')
    expect(await gate.admit('alice')).toBeUndefined()
  })

  it('holds the slot before the count is awaited: programs arriving together cannot all pass', async () => {
    const gate = limits()
    const answers = await Promise.all([1, 2, 3, 4].map(() => gate.admit('alice')))
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(2)
  })

  it('refuses beyond programs_per_minute, saying when to call again, and frees the slot it held', async () => {
    const gate = limits(1)
    expect(await gate.admit('alice')).toBeUndefined()
    gate.release('alice')
    const refused = await gate.admit('alice')
    expect(refused).toMatch(/programs_per_minute: 1\); nothing ran\. Call again in \d+ s/)
    const seconds = Number(/in (\d+) s/.exec(refused!)![1])
    expect(seconds).toBeGreaterThan(0)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(await gate.admit('bob')).toBeUndefined()
  })

  it('lets the program run when the count cannot be made (the store is down)', async () => {
    const broken: StartCounter = {countStart: () => Promise.reject(new Error('redis is down'))}
    const gate = new PrincipalLimits(
      {max_concurrent_programs: 1, programs_per_minute: 1},
      broken,
      silentLogger,
    )
    expect(await gate.admit('alice')).toBeUndefined()
    expect(await gate.admit('alice')).toMatch(/max_concurrent_programs: 1/)
  })
})
