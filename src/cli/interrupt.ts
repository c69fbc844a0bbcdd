/** The shell's code for a process ended by Ctrl-C (128 + SIGINT), documented in the README. */
export const EXIT_INTERRUPTED = 130

export interface Interrupt {
  /** Aborted by the first Ctrl-C. */
  signal: AbortSignal
  /** Resolves at the first Ctrl-C. */
  stopped: Promise<void>
  dispose(): void
}

/**
 * The first Ctrl-C (SIGINT) aborts `signal`, so the command can stop what it started and clean up;
 * a second one leaves at once.
 */
export function onInterrupt(): Interrupt {
  const controller = new AbortController()
  const stopped = new Promise<void>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(), {once: true})
  })
  const handler = (): void => {
    if (!controller.signal.aborted) {
      controller.abort(new Error('interrupted (Ctrl-C)'))
      return
    }
    // The default action of a second SIGINT ends the process as the shell expects.
    process.off('SIGINT', handler)
    process.kill(process.pid, 'SIGINT')
  }
  process.on('SIGINT', handler)
  return {signal: controller.signal, stopped, dispose: () => process.off('SIGINT', handler)}
}
