import type {ToolRegistry} from './registry.js'

import {Memo} from '../shared/memo.js'

export interface DeferredRegistry {
  /**
   * Stands for the registry from the start. Before it is loaded, `start()` loads and starts it,
   * `waitForInitialConnections()` loads it first, `onChange()` listens from when it is loaded, and
   * `close()` keeps it from starting; any other use throws, since nothing else may happen before
   * the first of those.
   */
  registry: ToolRegistry
  /** Loads it (once; a failure is retried by the next call). */
  load(): Promise<ToolRegistry>
}

/**
 * The downstream registry, its module loaded only when first needed: `serve` answers its client's
 * first request before the downstream code (the SDK client, Ajv, RE2, OAuth) is even read
 * (SPEC §5). Every tool handler starts by waiting for the first connections, which waits for the load.
 */
export function deferredRegistry(
  create: () => Promise<ToolRegistry>,
  onStartError: (error: unknown) => void,
): DeferredRegistry {
  let loaded: ToolRegistry | undefined
  let closed = false
  /** Listeners added before the load. */
  const early: {listener: () => void; stop: (() => void) | undefined}[] = []
  const loading = new Memo(async () => {
    const registry = await create()
    loaded = registry
    for (const waiting of early) waiting.stop = registry.onChange(waiting.listener)
    if (closed) await registry.close()
    return registry
  })
  const before: Pick<ToolRegistry, 'close' | 'onChange' | 'start' | 'waitForInitialConnections'> = {
    start() {
      if (!closed) loading.get().then((registry) => registry.start(), onStartError)
    },
    async waitForInitialConnections(timeoutMs) {
      await (await loading.get()).waitForInitialConnections(timeoutMs)
    },
    onChange(listener) {
      // Listening does not load it: the listener is attached when something else does.
      const waiting = {listener, stop: undefined as (() => void) | undefined}
      early.push(waiting)
      return () => {
        const at = early.indexOf(waiting)
        if (at !== -1) early.splice(at, 1)
        waiting.stop?.()
      }
    },
    async close() {
      closed = true
      await loading.current?.catch(() => {})
    },
  }
  const registry = new Proxy(before, {
    get(target, key) {
      if (loaded) {
        const value: unknown = Reflect.get(loaded, key, loaded)
        return typeof value === 'function' ? value.bind(loaded) : value
      }
      if (key in target) return target[key as keyof typeof target]
      // Not a thenable, and inspectable: only the registry's own names are refused.
      if (typeof key === 'symbol' || key === 'then') return
      throw new Error(`the downstream registry is used (${key}) before it is loaded`)
    },
  }) as unknown as ToolRegistry
  return {registry, load: () => loading.get()}
}
