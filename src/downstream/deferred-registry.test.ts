// @tier unit
import {describe, expect, it} from 'vitest'

import {silentLogger} from '../shared/log.js'
import {deferredRegistry} from './deferred-registry.js'
import {ToolRegistry} from './registry.js'

function counted() {
  const made: ToolRegistry[] = []
  const closed: ToolRegistry[] = []
  const deferred = deferredRegistry(
    async () => {
      const registry = new ToolRegistry({servers: []}, {logger: silentLogger, shapesDir: null})
      const close = registry.close.bind(registry)
      registry.close = async () => {
        closed.push(registry)
        await close()
      }
      made.push(registry)
      return registry
    },
    (error) => {
      throw error
    },
  )
  return {...deferred, made, closed}
}

describe('deferredRegistry', () => {
  it('is not made until started or waited for; then everything reaches the one registry', async () => {
    const {registry, load, made} = counted()
    expect(made).toHaveLength(0)
    expect(() => registry.listTools()).toThrow(
      'the downstream registry is used (listTools) before it is loaded',
    )
    // Awaiting it or inspecting it does not count as a use.
    expect(await Promise.resolve(registry)).toBe(registry)
    await registry.waitForInitialConnections(10)
    expect(made).toHaveLength(1)
    expect(registry.listTools()).toEqual([])
    expect(registry.redactor).toBe(made[0]!.redactor)
    expect(await load()).toBe(made[0])
    expect(made).toHaveLength(1)
  })

  it('closed before it was loaded: never made; closed while loading: closed once made', async () => {
    const never = counted()
    await never.registry.close()
    never.registry.start()
    expect(never.made).toHaveLength(0)
    expect(never.closed).toHaveLength(0)

    const loading = counted()
    const loaded = loading.load()
    await loading.registry.close()
    const registry = await loaded
    expect(loading.made).toEqual([registry])
    expect(loading.closed).toEqual([registry])
  })
})
