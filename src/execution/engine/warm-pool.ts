import type {Logger} from '../../shared/log.js'
import type {ProgramChild} from '../child/index.js'

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
 * How long after a run ends a pool of cheap children makes the missing ones: the fork and the new
 * child's start take the machine's CPU, and a few milliseconds let the answer reach the client
 * first (bench --steps on 2 cores: the client's receipt 100-150 µs sooner than at once).
 */
export const CHEAP_REFILL_AFTER_RUN_MS = 4

/**
 * How long after it was made a pool of cheap children starts the ones beyond `size`: serve's start
 * (downstream servers connecting) has the machine first, and a session's first parallel programs
 * come after the model has read a tool list or two.
 */
export const FILL_DELAY_MS = 1000

/**
 * The most children a pool of forked children keeps ready: `warm_pool`, or one round running and
 * one waiting next (twice `max_concurrent_programs`), whichever is more.
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
   * Children are cheap to make and to keep (a fork server: ~9 ms of CPU and ~5 MB each): replace
   * each one at once, and keep `maxSize` ready, so that programs sent several at once (a session's
   * first parallel calls too) each find one.
   */
  cheap?: boolean
  /** The children a cheap pool keeps ready. Default: `size`. */
  maxSize?: number
  logger: Logger
}

/**
 * Interpreters started ahead, each used for one program and replaced in the background
 * (SPEC §7 `warm_pool`). A pool of cheap children (forked, a few MB each, no CPU while they wait)
 * keeps `maxSize` ready, so that a burst finds them ready even after a quiet hour (SPEC §11); the
 * ones beyond `size` are made FILL_DELAY_MS after the pool. A child that fails to start stops the
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

  constructor(private readonly options: WarmPoolOptions) {
    this.refill(options.size)
    if (this.target > options.size) this.scheduleRefill(FILL_DELAY_MS)
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

  /** How many children are kept ready. */
  get target(): number {
    const {cheap, size, maxSize = size} = this.options
    return cheap && size > 0 ? Math.max(size, maxSize) : size
  }

  /**
   * Starts the missing children shortly, once a run's answer is out (call when a run ends).
   * Cheap children are made CHEAP_REFILL_AFTER_RUN_MS later, unless `othersRunning`: then only one, at once, when none is left
   * (the next program's), so that the programs of a burst keep the machine to themselves; the
   * rest come when the last one ends (or REFILL_DELAY_MS after a child was taken).
   */
  refillSoon(othersRunning = false): void {
    if (this.idle.length >= this.target) return
    if (!this.options.cheap) this.scheduleRefill(REFILL_AFTER_RUN_MS)
    else if (!othersRunning) this.scheduleRefill(CHEAP_REFILL_AFTER_RUN_MS)
    else if (this.idle.length === 0) setTimeout(() => this.refill(1), 0)
  }

  /** Kills every child, handed out or not, and waits until their scratch directories are gone. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.refillTimer)
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
