/**
 * How many programs run at once (SPEC §15 `execution.max_concurrent_programs`): the others wait
 * in order in a bounded queue, and beyond it they are refused, so a burst of requests cannot start
 * a sandbox each.
 */

/** Programs that may wait for a slot; one more is refused. */
export const MAX_WAITING_PROGRAMS = 64

/** Told when a program starts waiting and each time it moves up: how many are ahead of it. */
export type WaitListener = (ahead: number) => void

/** The queue is full: the program was not started. */
export class ProgramsBusyError extends Error {
  constructor(running: number, waiting: number) {
    super(
      `${running} programs are running and ${waiting} waiting, the most allowed ` +
        `(execution.max_concurrent_programs: ${running}, and ${MAX_WAITING_PROGRAMS} waiting); ` +
        'run this program again once some have finished',
    )
    this.name = 'ProgramsBusyError'
  }
}

interface Waiter {
  start: () => void
  onWait: WaitListener | undefined
}

export class ProgramSlots {
  private running = 0
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
  async acquire(signal?: AbortSignal, onWait?: WaitListener): Promise<() => void> {
    signal?.throwIfAborted()
    if (this.running < this.max && this.waiting.length === 0) {
      this.running++
      return this.releaser()
    }
    if (this.waiting.length >= this.maxWaiting) throw new ProgramsBusyError(this.running, this.waiting.length)
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

  private releaser(): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      if (next) {
        next.start()
        this.notifyWaiting(0)
      } else this.running--
    }
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
