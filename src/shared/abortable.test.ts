import {describe, expect, it} from 'vitest'

import {unlessAborted} from './abortable.js'

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
