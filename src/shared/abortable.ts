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
