import type {GatewayConfig} from '../config/schema.js'
import type {Logger} from '../shared/log.js'

import {counted} from '../shared/plural.js'

/** The rate limit's window: programs are counted per principal and minute. */
export const RATE_WINDOW_SECONDS = 60

/** Counts programs started per principal in fixed windows; shared by replicas when it is Redis. */
export interface StartCounter {
  /** Counts one more start of `principal` in the window now; resolves with the count and the seconds the window has left. */
  countStart(principal: string, windowSeconds: number): Promise<{count: number; resetSeconds: number}>
}

/**
 * Each principal's share of the gateway (SPEC §18, gateway.per_principal): programs running at once
 * in this replica (a paused program counts until it ends), and programs started a minute, counted
 * across replicas through the store. A program over either is refused before it starts, with text
 * the model can act on.
 */
export class PrincipalLimits {
  private readonly running = new Map<string, number>()

  constructor(
    private readonly limits: GatewayConfig['per_principal'],
    private readonly counter: StartCounter,
    private readonly logger: Logger,
  ) {}

  /** Undefined when the principal may start a program (its slot is then held until `release`); else why not. */
  async admit(principal: string): Promise<string | undefined> {
    const {max_concurrent_programs: most, programs_per_minute: perMinute} = this.limits
    const running = this.running.get(principal) ?? 0
    if (running >= most)
      return `PrincipalLimitError: you already have ${counted(running, 'program')} running on this gateway, the most allowed (gateway.per_principal.max_concurrent_programs: ${most}); nothing ran. Wait for one to end, or do the work in fewer programs, then call again`
    // Held before the count is awaited: programs arriving together cannot all pass.
    this.running.set(principal, running + 1)
    let started: Awaited<ReturnType<StartCounter['countStart']>>
    try {
      started = await this.counter.countStart(principal, RATE_WINDOW_SECONDS)
    } catch (error) {
      this.logger.warn(`the rate limit could not be counted (the program runs): ${(error as Error).message}`)
      return undefined
    }
    if (started.count <= perMinute) return undefined
    this.release(principal)
    return `PrincipalLimitError: you started ${perMinute} programs within a minute, the most allowed (gateway.per_principal.programs_per_minute: ${perMinute}); nothing ran. Call again in ${started.resetSeconds} s, or do more in each program`
  }

  /** The principal's program ended: its slot is free. */
  release(principal: string): void {
    const running = (this.running.get(principal) ?? 1) - 1
    if (running <= 0) this.running.delete(principal)
    else this.running.set(principal, running)
  }
}

/** Start counts in this replica's memory (gateway.store: memory). */
export class MemoryStartCounter implements StartCounter {
  private readonly windows = new Map<string, {window: number; count: number}>()

  async countStart(principal: string, windowSeconds: number): Promise<{count: number; resetSeconds: number}> {
    const now = Date.now() / 1000
    const window = Math.floor(now / windowSeconds)
    let entry = this.windows.get(principal)
    if (!entry || entry.window !== window) {
      // Old windows go as principals come back; a bound keeps the ones that never do few.
      if (this.windows.size > 10_000) this.windows.clear()
      entry = {window, count: 0}
      this.windows.set(principal, entry)
    }
    entry.count++
    return {count: entry.count, resetSeconds: Math.ceil((window + 1) * windowSeconds - now)}
  }
}
