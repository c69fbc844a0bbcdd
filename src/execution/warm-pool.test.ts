import {afterEach, beforeEach, describe, expect, test, vi} from 'vitest'

import type {ProgramChild} from './child/index.js'

import {silentLogger} from '../shared/log.js'
import {DEMAND_HOLD_MS, WarmPool, warmPoolMax} from './warm-pool.js'

/** A child as the pool sees it: ready at once, usable until taken or killed. */
class Child {
  usable = true
  killed = false
  readonly ready = Promise.resolve()
  private gone!: () => void
  readonly disposed = new Promise<void>((resolve) => {
    this.gone = resolve
  })

  kill(): void {
    this.usable = false
    this.killed = true
    this.gone()
  }
}

function pool(options: {size: number; maxSize?: number; cheap?: boolean}) {
  const made: Child[] = []
  const warm = new WarmPool({
    ...options,
    create() {
      const child = new Child()
      made.push(child)
      return child as unknown as ProgramChild
    },
    logger: silentLogger,
  })
  const waiting = () => made.filter((child) => child.usable).length
  return {warm, made, waiting}
}

/** A cheap pool of 1 (at most 4) grown by `programs` at once: one run ended, its refill made. */
async function grown(programs: number) {
  const made = pool({size: 1, maxSize: 4, cheap: true})
  made.warm.noteDemand(programs)
  await run(made.warm)
  await vi.advanceTimersByTimeAsync(0)
  return made
}

/** Takes a child as a run would, and ends the run. */
async function run(warm: WarmPool, othersRunning = false): Promise<void> {
  const child = (await warm.acquire()) as unknown as Child
  child.usable = false
  warm.refillSoon(othersRunning)
}

describe('WarmPool', () => {
  beforeEach(() => {
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout', 'performance']})
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  test('warmPoolMax: warm_pool, or twice the slots once programs come at once; 0 stays off', () => {
    expect(warmPoolMax({warm_pool: 1, max_concurrent_programs: 4})).toBe(8)
    expect(warmPoolMax({warm_pool: 12, max_concurrent_programs: 4})).toBe(12)
    expect(warmPoolMax({warm_pool: 0, max_concurrent_programs: 4})).toBe(0)
  })

  test('a pool of forked children grows to the programs that came at once, up to maxSize', async () => {
    const {warm, waiting} = pool({size: 1, maxSize: 4, cheap: true})
    expect(waiting()).toBe(1)
    warm.noteDemand(3)
    await run(warm)
    await vi.advanceTimersByTimeAsync(0)
    expect(warm.target).toBe(3)
    expect(waiting()).toBe(3)
    warm.noteDemand(50)
    await run(warm)
    await vi.advanceTimersByTimeAsync(0)
    expect(waiting()).toBe(4)
    await warm.close()
  })

  test('while other programs run, a cheap pool makes only the next child, and the rest once they are done', async () => {
    const {warm, waiting} = await grown(4)
    expect(waiting()).toBe(4)
    // Children left: none is made while the others run.
    await run(warm, true)
    await vi.advanceTimersByTimeAsync(100)
    expect(waiting()).toBe(3)
    await run(warm, true)
    await run(warm, true)
    await run(warm, true)
    // None left: the next program's, at once.
    await vi.advanceTimersByTimeAsync(0)
    expect(waiting()).toBe(1)
    warm.refillSoon(false)
    await vi.advanceTimersByTimeAsync(0)
    expect(waiting()).toBe(4)
    await warm.close()
  })

  test('it shrinks back to warm_pool once DEMAND_HOLD_MS pass without as many programs at once', async () => {
    const {warm, made, waiting} = await grown(4)
    expect(waiting()).toBe(4)
    // Fewer at once later does not hold the pool up.
    await vi.advanceTimersByTimeAsync(DEMAND_HOLD_MS / 2)
    warm.noteDemand(2)
    await vi.advanceTimersByTimeAsync(DEMAND_HOLD_MS / 2)
    expect(warm.target).toBe(1)
    expect(waiting()).toBe(1)
    // The ones ended are not replaced.
    await vi.advanceTimersByTimeAsync(DEMAND_HOLD_MS)
    expect(made.filter((child) => child.killed)).toHaveLength(3)
    expect(waiting()).toBe(1)
    await warm.close()
  })

  test('as many at once again holds it grown', async () => {
    const {warm, waiting} = await grown(3)
    await vi.advanceTimersByTimeAsync(DEMAND_HOLD_MS - 1000)
    warm.noteDemand(3)
    await vi.advanceTimersByTimeAsync(2000)
    expect(waiting()).toBe(3)
    await warm.close()
  })

  test('spawned children (not cheap) and a pool of 0 never grow', async () => {
    for (const options of [
      {size: 1, maxSize: 4},
      {size: 0, maxSize: 4, cheap: true},
    ]) {
      const {warm, waiting} = pool(options)
      warm.noteDemand(4)
      expect(warm.target).toBe(options.size)
      await run(warm)
      await vi.advanceTimersByTimeAsync(2000)
      expect(waiting()).toBe(options.size)
      await warm.close()
    }
  })
})
