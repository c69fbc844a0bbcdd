import {describe, expect, it} from 'vitest'

import type {ServerConfig} from '../../config/schema.js'

import {fixtureCommand} from '../../../test/fixtures/start-fixture.js'
import {silentLogger} from '../../shared/log.js'
import {createTransport} from '../transport/transports.js'
import {ServerSupervisor} from './supervisor.js'

const server: ServerConfig = {name: 'fixture', transport: 'stdio', ...fixtureCommand(), env: {}}
const FAST_RETRY = {initialMs: 50, maxMs: 200}

/** Resolves once `check()` holds, re-checked on every change of the supervisor; fails after 20 s. */
function when(supervisor: ServerSupervisor, check: () => boolean, what: string): Promise<void> {
  if (check()) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe()
      reject(new Error(`not ${what} after 20 s: ${JSON.stringify(supervisor.status())}`))
    }, 20_000)
    const unsubscribe = supervisor.onChange(() => {
      if (!check()) return
      clearTimeout(timer)
      unsubscribe()
      resolve()
    })
  })
}

describe('ServerSupervisor with an injected transport factory', () => {
  it('connects through the factory, which is asked once per attempt', async () => {
    const made: string[] = []
    const supervisor = new ServerSupervisor(server, {
      logger: silentLogger,
      backoff: FAST_RETRY,
      createTransport(config, options) {
        made.push(config.name)
        return createTransport(config, options)
      },
    })
    try {
      supervisor.start()
      await supervisor.firstAttempt
      expect(supervisor.status()).toMatchObject({connected: true, lastError: null})
      expect(supervisor.listTools().map((t) => t.tool)).toContain('echo')
      expect(supervisor.pid).toEqual(expect.any(Number))
      expect(made).toEqual(['fixture'])
    } finally {
      await supervisor.close()
    }
  })

  it('a factory that throws fails the attempt with its reason and a fix, and is asked again after the backoff', async () => {
    let asked = 0
    const supervisor = new ServerSupervisor(server, {
      logger: silentLogger,
      backoff: FAST_RETRY,
      createTransport() {
        asked++
        throw new Error('no route to the server')
      },
    })
    try {
      supervisor.start()
      await supervisor.firstAttempt
      expect(supervisor.connected).toBe(false)
      expect(supervisor.reason).toBe('no route to the server')
      expect(supervisor.lastFailure).toMatchObject({kind: 'other', message: 'no route to the server'})
      expect(supervisor.lastFailure?.fix).toMatch(/--log-level debug/)
      await when(supervisor, () => asked >= 2, 'asked again')
    } finally {
      await supervisor.close()
    }
  })
})
