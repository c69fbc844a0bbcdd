import type {Logger} from '../shared/log.js'
import type {ProgramChild} from './child/index.js'

/**
 * How long a replacement waits after its child was taken, unless the program ends sooner (the
 * engine then calls `refillSoon`). Starting a child blocks this process for the spawn and costs the
 * machine 0.1–0.2 s of CPU (interpreter, sandbox, runner): on a small machine that competes with the
 * program that was just handed over (npm run bench: 300 sequential tool calls took ~30% longer on
 * 2 cores with the replacement starting 25 ms in). A short program ends first; a long one gets its
 * replacement while it runs; a client's next program, issued after it has read this one's result,
 * finds the replacement ready either way.
 */
const REFILL_DELAY_MS = 1000

/**
 * How long after a run ends the replacement starts: time for the answer to reach the client first
 * (the spawn blocks this process for a few milliseconds).
 */
const REFILL_AFTER_RUN_MS = 20

/**
 * How long the pool stays grown after programs came several at once (cheap children only): then
 * the extra children waiting are ended, down to `size`.
 */
export const DEMAND_HOLD_MS = 60_000

/**
 * The most children a pool of forked children keeps ready: `warm_pool`, or, after programs came
 * several at once, one round running and one waiting next (twice `max_concurrent_programs`).
 */
export function warmPoolMax(execution: {warm_pool: number; max_concurrent_programs: number}): number {
  return execution.warm_pool === 0 ? 0 : Math.max(execution.warm_pool, 2 * execution.max_concurrent_programs)
}

export interface WarmPoolOptions {
  /** Children kept started ahead (execution.warm_pool); 0 starts each child on demand. */
  size: number
  /** Starts one child (spawned, confined, runner loaded once `ready` resolves). */
  create: () => ProgramChild
  /**
   * Children are cheap to make and to keep (a fork server): replace each one at once, and keep as
   * many ready as programs came at once lately, up to `maxSize`.
   */
  cheap?: boolean
  /** The most children a cheap pool keeps ready. Default: `size`. */
  maxSize?: number
  logger: Logger
}

/**
 * Interpreters started ahead, each used for one program and replaced in the background
 * (SPEC §7 `warm_pool`). A pool of cheap children (forked, a few MB each, no CPU while they wait)
 * also grows to as many as programs came at once lately, so that a burst finds them ready, and
 * shrinks back once programs stop coming several at once. A child that fails to start stops the
 * refilling until a child starts again, so a broken sandbox does not spin; the next run then
 * starts its own child and reports why.
 */
export class WarmPool {
  /** Started for the pool and not handed out yet (starting or ready), oldest first. */
  private readonly idle: ProgramChild[] = []
  /** Every child not yet disposed, handed out or not: `close` ends them all. */
  private readonly live = new Set<ProgramChild>()
  private refillTimer: NodeJS.Timeout | undefined
  /** When the pending refill fires (performance.now()). */
  private refillAt = Number.POSITIVE_INFINITY
  private failing = false
  private closed = false
  /**
   * The most programs at once lately (cheap pools), until `shrinkTimer` ends it DEMAND_HOLD_MS
   * after it was last met.
   */
  private demand = 0
  private shrinkTimer: NodeJS.Timeout | undefined

  constructor(private readonly options: WarmPoolOptions) {
    this.refill()
  }

  /** A child waiting for a program. Rejects with SandboxError when none can be started. */
  async acquire(): Promise<ProgramChild> {
    if (this.closed) throw new Error('the warm pool is closed')
    let child = this.idle.find((candidate) => candidate.usable)
    // None ready: the oldest one still starting is closer to ready than a new one.
    child ??= this.idle.find((candidate) => !candidate.usable && !this.failing)
    if (child) this.idle.splice(this.idle.indexOf(child), 1)
    else child = this.track(this.options.create())
    // Spawning blocks the event loop until the new process has exec'd (a fork of this process,
    // and a wait for the scheduler), and even a forked child's start takes CPU: let a short
    // program finish first (`refillSoon` then comes sooner).
    this.scheduleRefill(REFILL_DELAY_MS)
    await child.ready
    if (!child.usable) throw new Error('the Python child ended before it received the program')
    if (this.failing) {
      // Children start again: refill.
      this.failing = false
      this.refillSoon()
    }
    return child
  }

  /**
   * Tells the pool that `programs` are running or waiting, this one included (call as each program
   * arrives). A cheap pool then keeps that many ready, up to `maxSize`, until DEMAND_HOLD_MS have
   * passed without as many at once.
   */
  noteDemand(programs: number): void {
    const {cheap, size, maxSize = size} = this.options
    const wanted = Math.min(programs, maxSize)
    if (!cheap || size === 0 || wanted <= size || this.closed || wanted < this.demand) return
    this.demand = wanted
    clearTimeout(this.shrinkTimer)
    this.shrinkTimer = setTimeout(() => this.shrink(), DEMAND_HOLD_MS)
    this.shrinkTimer.unref()
  }

  /** How many children are kept ready now. */
  get target(): number {
    return Math.max(this.options.size, this.demand)
  }

  /**
   * Starts the missing children shortly, once a run's answer is out (call when a run ends).
   * Cheap children are made at once, unless `othersRunning`: then only one, when none is left
   * (the next program's), so that the programs of a burst keep the machine to themselves; the
   * rest come when the last one ends (or REFILL_DELAY_MS after a child was taken).
   */
  refillSoon(othersRunning = false): void {
    if (this.idle.length >= this.target) return
    if (!this.options.cheap) this.scheduleRefill(REFILL_AFTER_RUN_MS)
    else if (!othersRunning) this.scheduleRefill(0)
    else if (this.idle.length === 0) setTimeout(() => this.refill(1), 0)
  }

  /** Kills every child, handed out or not, and waits until their scratch directories are gone. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.refillTimer)
    clearTimeout(this.shrinkTimer)
    this.idle.length = 0
    const children = [...this.live]
    for (const child of children) child.kill()
    await Promise.all(children.map((child) => child.disposed))
  }

  private track(child: ProgramChild): ProgramChild {
    this.live.add(child)
    child.disposed.then(() => {
      this.live.delete(child)
      const index = this.idle.indexOf(child)
      if (index !== -1) {
        // Died while waiting (killed from outside, out of memory...): replace it.
        this.idle.splice(index, 1)
        this.refillSoon()
      }
    })
    return child
  }

  /** Refills in `delayMs`, or sooner when a refill is already due sooner. */
  private scheduleRefill(delayMs: number): void {
    if (this.closed || this.options.size === 0) return
    const at = performance.now() + delayMs
    if (at >= this.refillAt) return
    clearTimeout(this.refillTimer)
    this.refillAt = at
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined
      this.refillAt = Number.POSITIVE_INFINITY
      this.refill()
    }, delayMs)
  }

  /** Programs stopped coming several at once: the children beyond `size` waiting are ended. */
  private shrink(): void {
    this.demand = 0
    while (this.idle.length > this.options.size) this.idle.pop()!.kill()
  }

  /** Starts children until the pool has its target, at most `most` of them. */
  private refill(most = Number.POSITIVE_INFINITY): void {
    for (let made = 0; made < most && this.idle.length < this.target; made++) {
      if (this.closed || this.failing) return
      const child = this.track(this.options.create())
      this.idle.push(child)
      child.ready.then(
        () => {
          this.failing = false
        },
        (error: Error) => {
          if (this.closed) return
          this.failing = true
          this.options.logger.warn(`a warm Python child failed to start: ${error.message}`)
        },
      )
    }
  }
}
