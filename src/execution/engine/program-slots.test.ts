import {describe, expect, test} from 'vitest'

import {ProgramsBusyError, ProgramSlots} from './program-slots.js'

describe('ProgramSlots', () => {
  test('at most max run; the others start in order as slots are given back', async () => {
    const slots = new ProgramSlots(2, 10)
    const started: number[] = []
    const releases = new Map<number, () => void>()
    const all = [1, 2, 3, 4, 5].map(async (n) => {
      const release = await slots.acquire()
      started.push(n)
      releases.set(n, release)
    })
    await Promise.resolve()
    await new Promise((resolve) => {
      setImmediate(resolve)
    })
    expect(started).toEqual([1, 2])
    releases.get(2)!()
    releases.get(2)!() // a second call gives nothing back
    await new Promise((resolve) => {
      setImmediate(resolve)
    })
    expect(started).toEqual([1, 2, 3])
    // A newcomer does not jump the queue, even at the moment a slot is free.
    releases.get(1)!()
    const late = slots.acquire().then(() => started.push(6))
    releases.get(3)!()
    await Promise.all(all)
    releases.get(4)!()
    await late
    expect(started).toEqual([1, 2, 3, 4, 5, 6])
  })

  test('beyond the queue, a program is refused at once with the limits named', async () => {
    const slots = new ProgramSlots(1, 2)
    await slots.acquire()
    const waiting = [slots.acquire(), slots.acquire()]
    await expect(slots.acquire()).rejects.toThrow(ProgramsBusyError)
    await expect(slots.acquire()).rejects.toThrow(
      '1 program is running and 2 waiting, the most allowed (execution.max_concurrent_programs: 1, and 64 waiting); run this program again once some have finished',
    )
    expect(waiting).toHaveLength(2)
  })

  test('waiters hear how many are ahead, each time it changes; an aborted one leaves the queue', async () => {
    const slots = new ProgramSlots(1, 10)
    const release = await slots.acquire()
    const heard: Record<string, number[]> = {a: [], b: [], c: []}
    const controller = new AbortController()
    const a = slots.acquire(undefined, (ahead) => heard.a!.push(ahead))
    const b = slots.acquire(controller.signal, (ahead) => heard.b!.push(ahead))
    const c = slots.acquire(undefined, (ahead) => heard.c!.push(ahead))
    controller.abort(new Error('cancelled'))
    await expect(b).rejects.toThrow('cancelled')
    expect(heard).toEqual({a: [0], b: [1], c: [2, 1]})
    release()
    const releaseA = await a
    expect(heard.c).toEqual([2, 1, 0])
    releaseA()
    await c
  })

  test('a slot is free once its program is answered; at most twice as many sandboxes still going are waited for', async () => {
    const slots = new ProgramSlots(2, 10)
    const gone: Array<() => void> = []
    const going = () =>
      new Promise<void>((resolve) => {
        gone.push(resolve)
      })
    const first = await slots.acquire()
    const second = await slots.acquire()
    first(going())
    // Answered, its sandbox still going: the slot is free for the next program.
    const third = await slots.acquire()
    second(going())
    const fourth = await slots.acquire()
    third(going())
    fourth(going())
    // Four sandboxes going, twice the slots: the next program waits for one to be gone.
    let fifthStarted = false
    const fifth = slots.acquire().then((release) => {
      fifthStarted = true
      return release
    })
    await new Promise((resolve) => {
      setImmediate(resolve)
    })
    expect(fifthStarted).toBe(false)
    gone[0]!()
    ;(await fifth)()
    expect(fifthStarted).toBe(true)
  })
})
