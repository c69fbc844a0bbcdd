import {timeoutSignal, unlessAborted} from '../../shared/abortable.js'

/** What a wait for a server's connection reads of its supervisor (supervisor.ts). */
export interface Connecting {
  readonly connected: boolean
  /** On its first attempt, or reconnecting after it lost a working connection. */
  readonly starting: boolean
  /** Settles when the first attempt has ended, connected or not. */
  readonly firstAttempt: Promise<void>
  onChange(listener: () => void): () => void
}

/**
 * Resolves true once `server` is connected, false as soon as waiting is pointless (an attempt
 * failed), `signal` aborts, or `timeoutMs` passes.
 */
export async function untilConnected(
  server: Connecting,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  if (server.connected) return true
  if (!server.starting) return false
  let unsubscribe = () => {}
  const settled = new Promise<boolean>((resolve) => {
    const check = () => {
      if (server.connected) resolve(true)
      else if (!server.starting) resolve(false)
    }
    unsubscribe = server.onChange(check)
    // A first attempt that fails emits nothing: its end is the firstAttempt promise.
    server.firstAttempt.then(check, () => {})
  })
  const timeout = timeoutSignal(timeoutMs)
  try {
    return await unlessAborted(settled, signal ? AbortSignal.any([signal, timeout]) : timeout)
  } catch {
    return false
  } finally {
    unsubscribe()
  }
}
