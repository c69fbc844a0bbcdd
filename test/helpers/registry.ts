// Waiting on a real ToolRegistry, and starting one over the fixture server, for tests.
import {ToolRegistry} from '../../src/downstream/registry.js'
import {silentLogger} from '../../src/shared/log.js'
import {fixtureCommand} from '../fixtures/start-fixture.js'

/** Resolves once `check()` holds, re-checking on every registry change; fails after `timeoutMs`. */
export function whenRegistry(
  registry: ToolRegistry,
  check: () => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  if (check()) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe()
      reject(
        new Error(`not ${what} after ${timeoutMs} ms; status: ${JSON.stringify(registry.serverStatus())}`),
      )
    }, timeoutMs)
    const unsubscribe = registry.onChange(() => {
      if (!check()) return
      clearTimeout(timer)
      unsubscribe()
      resolve()
    })
  })
}

/** A started registry with the fixture over stdio as server `fixture`, after its first attempt. */
export async function startFixtureRegistry(): Promise<ToolRegistry> {
  const registry = new ToolRegistry(
    {servers: [{name: 'fixture', transport: 'stdio', ...fixtureCommand(), env: {}}]},
    {logger: silentLogger},
  )
  registry.start()
  await registry.waitForInitialConnections(20_000)
  return registry
}
