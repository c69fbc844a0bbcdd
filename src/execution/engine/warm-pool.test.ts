import {afterEach, beforeEach, describe, expect, test, vi} from 'vitest'

import type {ProgramChild} from '../child/index.js'

import {silentLogger} from '../../shared/log.js'
import {CHEAP_REFILL_AFTER_RUN_MS, FILL_DELAY_MS, WarmPool, warmPoolMax} from './warm-pool.js'

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

/** A cheap pool of 1 (4 kept ready), filled. */
async function filled() {
  const made = pool({size: 1, maxSize: 4, cheap: true})
  await vi.advanceTimersByTimeAsync(FILL_DELAY_MS)
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

  test('warmPoolMax: warm_pool, or twice the slots; 0 stays off', () => {
    expect(warmPoolMax({warm_pool: 1, max_concurrent_programs: 4})).toBe(8)
    expect(warmPoolMax({warm_pool: 12, max_concurrent_programs: 4})).toBe(12)
    expect(warmPoolMax({warm_pool: 0, max_concurrent_programs: 4})).toBe(0)
  })

  test('a pool of forked children starts warm_pool at once and the rest of maxSize a little later', async () => {
    const {warm, waiting} = pool({size: 1, maxSize: 4, cheap: true})
    expect(warm.target).toBe(4)
    expect(waiting()).toBe(1)
    await vi.advanceTimersByTimeAsync(FILL_DELAY_MS - 1)
    expect(waiting()).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(waiting()).toBe(4)
    await warm.close()
  })

  test('a burst after a quiet hour finds every child ready, and they are replaced after it', async () => {
    const {warm, made, waiting} = await filled()
    await vi.advanceTimersByTimeAsync(3_600_000)
    expect(made.filter((child) => child.killed)).toHaveLength(0)
    const before = made.length
    const taken = await Promise.all([warm.acquire(), warm.acquire(), warm.acquire(), warm.acquire()])
    // All four were waiting: none was made for the burst.
    expect(made.length).toBe(before)
    for (const child of taken) (child as unknown as Child).usable = false
    warm.refillSoon(false)
    // A moment after the run, so that its answer goes out first.
    await vi.advanceTimersByTimeAsync(CHEAP_REFILL_AFTER_RUN_MS - 1)
    expect(waiting()).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(waiting()).toBe(4)
    await warm.close()
  })

  test('while other programs run, a cheap pool makes only the next child, and the rest once they are done', async () => {
    const {warm, waiting} = await filled()
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
    await vi.advanceTimersByTimeAsync(CHEAP_REFILL_AFTER_RUN_MS)
    expect(waiting()).toBe(4)
    await warm.close()
  })

  test('spawned children (not cheap) and a pool of 0 keep warm_pool', async () => {
    for (const options of [
      {size: 1, maxSize: 4},
      {size: 0, maxSize: 4, cheap: true},
    ]) {
      const {warm, waiting} = pool(options)
      expect(warm.target).toBe(options.size)
      await run(warm)
      await vi.advanceTimersByTimeAsync(2000)
      expect(waiting()).toBe(options.size)
      await warm.close()
    }
  })
})
