import type {StateConfig} from '../config/schema.js'

import {KeptState} from '../execution/index.js'

/**
 * Where the gateway keeps what programs store (SPEC §6.2, §18): per owner, that is per principal
 * (2026-07-28) or per principal and session (2025 era), across requests; `memory` in this replica,
 * or Redis, shared by replicas. Each store's state is bounded as §6.2 says, and expires after
 * `gateway.state_idle_seconds` without use.
 */
export interface StateStore {
  /** The owner's state as it is now: what the next program starts with. */
  open(owner: string): Promise<KeptState>
  /** Resolves once every write made so far has reached the store. */
  flush(): Promise<void>
  /** Whether the store can be used now (`/readyz`). */
  ready(): boolean
  close(): Promise<void>
}

/**
 * Where paused programs are (SPEC §18): each requestState handed out, with the address of the
 * replica holding its program, until it expires. Shared by replicas through Redis.
 */
export interface PausedRegistry {
  register(requestState: string, owner: string, ttlSeconds: number): Promise<void>
  /** The address of the replica holding the program this requestState pauses, if any. */
  ownerOf(requestState: string): Promise<string | undefined>
}

/** One replica's states, in memory: the same object for every program of an owner. */
export class MemoryStateStore implements StateStore {
  private readonly states = new Map<string, {state: KeptState; used: number}>()

  constructor(
    private readonly limits: StateConfig,
    private readonly idleMs: number,
  ) {}

  async open(owner: string): Promise<KeptState> {
    const now = Date.now()
    for (const [key, entry] of this.states) if (now - entry.used > this.idleMs) this.states.delete(key)
    let entry = this.states.get(owner)
    if (!entry) {
      entry = {state: new KeptState(this.limits), used: now}
      this.states.set(owner, entry)
    }
    entry.used = now
    return entry.state
  }

  async flush(): Promise<void> {}

  ready(): boolean {
    return true
  }

  async close(): Promise<void> {
    this.states.clear()
  }
}
