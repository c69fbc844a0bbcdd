import {describe, expect, it} from 'vitest'

import {type Connecting, untilConnected} from './connected-wait.js'

/** A server still on its first attempt, which never ends. */
function starting(): Connecting & {listeners: number} {
  const server = {
    connected: false,
    starting: true,
    firstAttempt: new Promise<void>(() => {}),
    listeners: 0,
    onChange() {
      server.listeners++
      return () => {
        server.listeners--
      }
    },
  }
  return server
}

describe('untilConnected', () => {
  it('gives up after a wait of any length a config gives (2.01 s is 2009.9999999999998 ms)', async () => {
    const server = starting()
    expect(await untilConnected(server, 0.0201 * 1000)).toBe(false)
    expect(await untilConnected(server, 0.002_01 * 1000)).toBe(false)
    expect(server.listeners).toBe(0)
  })

  it('gives up as soon as the signal aborts', async () => {
    const server = starting()
    const controller = new AbortController()
    const waiting = untilConnected(server, 60_000, controller.signal)
    controller.abort()
    expect(await waiting).toBe(false)
    expect(server.listeners).toBe(0)
  })
})
