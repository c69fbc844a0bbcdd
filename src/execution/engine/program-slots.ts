import {MAX_WAITING_PROGRAMS} from '../../shared/limits.js'
import {counted} from '../../shared/plural.js'

/**
 * How many programs run at once (SPEC §15 `execution.max_concurrent_programs`): the others wait
 * in order in a bounded queue, and beyond it they are refused, so a burst of requests cannot start
 * a sandbox each. A program's slot is free once it is answered; its sandbox, killed then, may take
 * a moment to go (a spawned one 0.1–0.2 s under load, a forked one a few milliseconds), and at
 * most twice as many such as the slots are waited for, so that the programs of a burst that end
 * together do not hold up the next round: sandboxes alive stay within three times the slots (and
 * the warm pool's).
 */

/** Told when a program starts waiting and each time it moves up: how many are ahead of it. */
export type WaitListener = (ahead: number) => void

/** The queue is full: the program was not started. */
export class ProgramsBusyError extends Error {
  constructor(running: number, waiting: number, max: number) {
    super(
      `${counted(running, 'program')} ${running === 1 ? 'is' : 'are'} running and ${waiting} waiting, the most allowed ` +
        `(execution.max_concurrent_programs: ${max}, and ${MAX_WAITING_PROGRAMS} waiting); ` +
        'run this program again once some have finished',
    )
    this.name = 'ProgramsBusyError'
  }
}

interface Waiter {
  start: () => void
  onWait: WaitListener | undefined
}

/** Gives a slot back; `gone`, when given, settles once the program's sandbox is gone. */
export type SlotRelease = (gone?: Promise<unknown>) => void

export class ProgramSlots {
  private running = 0
  /** Programs answered whose sandboxes are still going. */
  private ending = 0
  private readonly waiting: Waiter[] = []

  constructor(
    private readonly max: number,
    private readonly maxWaiting = MAX_WAITING_PROGRAMS,
  ) {}

  /**
   * Resolves with the function that gives the slot back (call it once) when the program may start.
   * Rejects with ProgramsBusyError when the queue is full, or with the signal's reason when it is
   * aborted while waiting.
   */
  async acquire(signal?: AbortSignal, onWait?: WaitListener): Promise<SlotRelease> {
    signal?.throwIfAborted()
    if (this.free && this.waiting.length === 0) {
      this.running++
      return this.releaser()
    }
    if (this.waiting.length >= this.maxWaiting)
      throw new ProgramsBusyError(this.running, this.waiting.length, this.max)
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start() {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        },
        onWait,
      }
      const onAbort = (): void => {
        const index = this.waiting.indexOf(waiter)
        if (index !== -1) this.waiting.splice(index, 1)
        this.notifyWaiting(index)
        reject(signal!.reason)
      }
      signal?.addEventListener('abort', onAbort, {once: true})
      this.waiting.push(waiter)
      notify(waiter, this.waiting.length - 1)
    })
    // The slot was handed over as it was given back: `running` already counts it.
    return this.releaser()
  }

  /** Programs running or waiting for a slot. */
  get programs(): number {
    return this.running + this.waiting.length
  }

  /** Programs waiting for a slot. */
  get queued(): number {
    return this.waiting.length
  }

  private get free(): boolean {
    return this.running < this.max && this.ending < 2 * this.max
  }

  private releaser(): SlotRelease {
    let released = false
    return (gone) => {
      if (released) return
      released = true
      this.running--
      if (gone) {
        this.ending++
        const settle = (): void => {
          this.ending--
          this.startWaiting()
        }
        gone.then(settle, settle)
      }
      this.startWaiting()
    }
  }

  /** Starts waiting programs, in order, while slots are free. */
  private startWaiting(): void {
    let started = 0
    while (this.free && this.waiting.length > 0) {
      this.running++
      this.waiting.shift()!.start()
      started++
    }
    if (started > 0) this.notifyWaiting(0)
  }

  /** Everyone from `from` on moved up one place. */
  private notifyWaiting(from: number): void {
    for (let index = Math.max(0, from); index < this.waiting.length; index++)
      notify(this.waiting[index]!, index)
  }
}

function notify(waiter: Waiter, ahead: number): void {
  try {
    waiter.onWait?.(ahead)
  } catch {
    // A listener's failure is not the program's.
  }
}
