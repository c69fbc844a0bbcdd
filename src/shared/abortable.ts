/**
 * `promise`, or, as soon as `signal` aborts, a rejection with its reason: the one home of the
 * "wait for this unless cancelled" race. The listener is removed once either side settles; an
 * already aborted signal rejects at once (its 'abort' event has fired and will not again).
 */
export async function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, {once: true})
  })
  try {
    return await Promise.race([promise, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort!)
  }
}

/** Longest delay a Node timer keeps (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * `AbortSignal.timeout` for any duration a config can give: `AbortSignal.timeout` throws for a
 * fraction (`2.01 * 1000` is 2009.9999999999998), a negative or NaN, where `setTimeout` did not.
 * Rounded up, at least 0, at most what a timer keeps. Like `AbortSignal.timeout`, it keeps no
 * process alive: a wait on it alone lets a finished command exit.
 */
export function timeoutSignal(ms: number): AbortSignal {
  return AbortSignal.timeout(Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(ms)) || 0))
}
