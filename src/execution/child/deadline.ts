import {performance} from 'node:perf_hooks'

/**
 * A program's time limit, which stops while the user decides on a call (SPEC §12). Pauses nest:
 * the clock runs again when every pause has been resumed.
 */
export class PausableDeadline {
  /** When time runs out, on the performance clock; moved on by pauses. */
  private deadlineAt: number
  private timer: NodeJS.Timeout | undefined
  private pauses = 0
  private pausedAt = 0
  private stopped = false

  constructor(
    timeoutMs: number,
    private readonly onExpired: () => void,
  ) {
    this.deadlineAt = performance.now() + timeoutMs
    this.timer = setTimeout(onExpired, timeoutMs)
  }

  pause(): void {
    if (this.stopped || this.pauses++ > 0) return
    this.pausedAt = performance.now()
    clearTimeout(this.timer)
  }

  resume(): void {
    if (this.pauses === 0 || --this.pauses > 0 || this.stopped) return
    const now = performance.now()
    this.deadlineAt += now - this.pausedAt
    this.timer = setTimeout(this.onExpired, Math.max(0, this.deadlineAt - now))
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }
}
