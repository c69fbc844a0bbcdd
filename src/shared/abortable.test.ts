// @tier unit
import {describe, expect, it} from 'vitest'

import {timeoutSignal, unlessAborted} from './abortable.js'

describe('unlessAborted', () => {
  it('gives what the promise gives when nothing aborts', async () => {
    expect(await unlessAborted(Promise.resolve(7), new AbortController().signal)).toBe(7)
  })

  it('rejects with the reason as soon as the signal aborts, while the promise still waits', async () => {
    const controller = new AbortController()
    const waiting = unlessAborted(new Promise(() => {}), controller.signal)
    controller.abort(new Error('cancelled'))
    await expect(waiting).rejects.toThrow('cancelled')
  })

  it('rejects at once for a signal aborted before', async () => {
    await expect(unlessAborted(new Promise(() => {}), AbortSignal.abort(new Error('early')))).rejects.toThrow(
      'early',
    )
  })

  it('leaves no listener on the signal once settled', async () => {
    const controller = new AbortController()
    let listeners = 0
    const add = controller.signal.addEventListener.bind(controller.signal)
    const remove = controller.signal.removeEventListener.bind(controller.signal)
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++
      add(...args)
    }) as typeof add
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners--
      remove(...args)
    }) as typeof remove
    await unlessAborted(Promise.resolve(1), controller.signal)
    await expect(unlessAborted(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow('no')
    expect(listeners).toBe(0)
  })
})

describe('timeoutSignal', () => {
  it('takes the durations a config gives, where AbortSignal.timeout throws', async () => {
    const ms = 2.01 * 1000 // 2009.9999999999998
    expect(() => AbortSignal.timeout(ms)).toThrow(RangeError)
    for (const value of [ms, 0.5, -3, Number.NaN, 1e12]) expect(timeoutSignal(value).aborted).toBe(false)
    const signal = timeoutSignal(0.4)
    await expect.poll(() => signal.aborted, {timeout: 5000}).toBe(true)
    expect((signal.reason as Error).name).toBe('TimeoutError')
  })
})
