import {createHash} from 'node:crypto'

import type {StateConfig} from '../config/schema.js'
import type {Logger} from '../shared/log.js'
import type {StartCounter} from './principal-limits.js'
import type {PausedRegistry, StateStore} from './state-store.js'

import {KeptState} from '../execution/index.js'

/** The part of a Redis client this store uses. */
type RedisClient = Awaited<ReturnType<typeof connectRedis>>

/** Each owner's values are one Redis hash under this prefix: key → the value's JSON. */
const KEY_PREFIX = 'ptc-mcp:state:'
/** Each paused program's owner, under the SHA-256 of its requestState. */
const PAUSED_PREFIX = 'ptc-mcp:paused:'
/** Programs a principal started in one window of the rate limit: `<principal>:<window>`. */
const RATE_PREFIX = 'ptc-mcp:started:'

/**
 * State shared by replicas through Redis (`gateway.store: redis://...`, SPEC §18). A program starts
 * with the owner's values as Redis has them; each store() or forget() is written through at once
 * (in order, on one connection) and the owner's hash expires after state_idle_seconds without a
 * write. The bounds of §6.2 are checked against what the program started with. Files left in
 * ./session/ stay in the replica's memory for that program only.
 */
export class RedisStateStore implements PausedRegistry, StartCounter, StateStore {
  private readonly pending = new Set<Promise<unknown>>()

  private constructor(
    private readonly client: RedisClient,
    private readonly limits: StateConfig,
    private readonly idleSeconds: number,
  ) {}

  static async connect(
    url: string,
    limits: StateConfig,
    idleSeconds: number,
    logger: Logger,
  ): Promise<RedisStateStore> {
    // Redis expires whole seconds.
    return new RedisStateStore(await connectRedis(url, logger), limits, Math.ceil(idleSeconds))
  }

  async open(owner: string): Promise<KeptState> {
    const key = KEY_PREFIX + owner
    const {client, idleSeconds} = this
    const [values] = (await client.multi().hGetAll(key).expire(key, idleSeconds).exec()) as unknown as [
      Record<string, string>,
    ]
    const state = new WriteThroughState(this.limits, (field, json) => {
      const write = client.multi()
      if (json === undefined) write.hDel(key, field)
      else write.hSet(key, field, json)
      this.track(write.expire(key, idleSeconds).exec())
    })
    state.hydrate(Object.entries(values))
    return state
  }

  async register(requestState: string, owner: string, ttlSeconds: number): Promise<void> {
    await this.client.set(pausedKey(requestState), owner, {expiration: {type: 'EX', value: ttlSeconds}})
  }

  async ownerOf(requestState: string): Promise<string | undefined> {
    return (await this.client.get(pausedKey(requestState))) ?? undefined
  }

  async countStart(principal: string, windowSeconds: number): Promise<{count: number; resetSeconds: number}> {
    const now = Date.now() / 1000
    const window = Math.floor(now / windowSeconds)
    const key = `${RATE_PREFIX}${principal}:${window}`
    const [count] = (await this.client.multi().incr(key).expire(key, windowSeconds).exec()) as unknown as [
      number,
    ]
    return {count, resetSeconds: Math.ceil((window + 1) * windowSeconds - now)}
  }

  async flush(): Promise<void> {
    await Promise.allSettled(this.pending)
  }

  ready(): boolean {
    return this.client.isReady
  }

  async close(): Promise<void> {
    await this.flush()
    this.client.destroy()
  }

  private track(write: Promise<unknown>): void {
    const settled = write.then(
      () => {},
      () => {},
    )
    this.pending.add(settled)
    settled.finally(() => this.pending.delete(settled))
  }
}

/** Passes on one change: a value's JSON, or undefined for a key forgotten. */
type Write = (key: string, json?: string) => void

/** Kept state whose changes are passed on as they are made. */
class WriteThroughState extends KeptState {
  private loading = false

  constructor(
    limits: StateConfig,
    private readonly write: Write,
  ) {
    super(limits)
  }

  hydrate(entries: Array<[string, string]>): void {
    this.loading = true
    try {
      for (const [key, json] of entries) {
        try {
          super.storeJson(key, json)
        } catch {
          // A value the bounds no longer admit (the config changed) is not given to programs.
        }
      }
    } finally {
      this.loading = false
    }
  }

  override storeJson(key: string, json: string): number {
    const bytes = super.storeJson(key, json)
    if (!this.loading) this.write(key, json)
    return bytes
  }

  override forget(key: unknown): boolean {
    const existed = super.forget(key)
    if (existed) this.write(key as string)
    return existed
  }
}

async function connectRedis(url: string, logger: Logger) {
  const {createClient} = await import('@redis/client')
  const client = createClient({
    url,
    socket: {connectTimeout: 5000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 2000)},
  })
  client.on('error', (error: Error) => logger.warn(`redis: ${error.message}`))
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from ${redactedUrl(url)} in 5 s`)), 5000)
  })
  try {
    await Promise.race([client.connect(), timeout])
  } catch (error) {
    client.destroy()
    throw error
  } finally {
    clearTimeout(timer)
  }
  return client
}

/** The URL without its password, for messages. */
function redactedUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//')
}

function pausedKey(requestState: string): string {
  return PAUSED_PREFIX + createHash('sha256').update(requestState).digest('hex')
}
