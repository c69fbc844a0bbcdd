/** Retry delays after a failed attempt or a lost connection (SPEC §4): pure, so tests need no timers. */
export interface BackoffOptions {
  /** First delay after a failure. Default 1000 ms. */
  initialMs: number
  /** The delay doubles up to this. Default 60000 ms. */
  maxMs: number
}

export const DEFAULT_BACKOFF: BackoffOptions = {initialMs: 1000, maxMs: 60_000}

/**
 * The delay before the next attempt after `streak` consecutive failures (0 for the first): the
 * initial delay doubling up to the maximum, with ±20 % jitter so that servers that failed together
 * do not retry in lockstep. `random` is `Math.random` but for tests.
 */
export function retryDelay(
  streak: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const base = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(streak, 30))
  return Math.round(Math.min(options.maxMs, base * (0.8 + random() * 0.4)))
}

/** The failure streak once a connection that lasted `lastedMs` is lost: one that lasted resets it, one that died at once keeps it growing. */
export function streakAfterLoss(streak: number, lastedMs: number, options: BackoffOptions): number {
  return lastedMs >= options.maxMs ? 0 : streak
}
