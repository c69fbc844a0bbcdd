import {SandboxError} from '../../shared/errors.js'
import {formatSeconds} from '../../shared/seconds.js'

/**
 * A child's way to ready: the bounded wait for its `ready` message, what that message reports, and
 * the error a child that never gets there ends with. ProgramChild drives it.
 */

/** Where a starting child's wait is settled from: set while the wait runs, cleared once settled. */
export interface StartWait {
  settle?: (error?: Error) => void
}

/** Waits until `wait.settle` is called (rejecting with its error), or `timeoutMs` passes. */
export async function untilReady(wait: StartWait, timeoutMs: number): Promise<void> {
  const ready = new Promise<void>((resolve, reject) => {
    wait.settle = (error) => {
      wait.settle = undefined
      if (error) reject(error)
      else resolve()
    }
  })
  const timer = setTimeout(() => {
    wait.settle?.(
      new SandboxError(`the sandboxed Python did not start within ${formatSeconds(timeoutMs)}`, {
        suggestion: 'check the machine load, or run `ptc-mcp doctor`',
      }),
    )
  }, timeoutMs)
  try {
    await ready
  } finally {
    clearTimeout(timer)
  }
}

/** What the child's `ready` message says of its confinement (untrusted: anything else is ignored). */
export interface ReadyReport {
  /** The sandbox layer in force, when the child named one. */
  tier?: string
  /** True when the sandbox made the scratch dir a size-capped tmpfs (else it is on the host's disk). */
  scratchOnTmpfs: boolean
}

export function readyReport(confine: unknown): ReadyReport {
  const report = confine as {tier?: unknown; bounds?: {scratch?: unknown}} | null | undefined
  const valid = report !== null && typeof report === 'object'
  const scratch = valid ? report.bounds?.scratch : undefined
  return {
    ...(valid && typeof report.tier === 'string' && {tier: report.tier}),
    scratchOnTmpfs: typeof scratch === 'string' && scratch.startsWith('tmpfs'),
  }
}

export const stoppedBeforeReady = (): SandboxError =>
  new SandboxError('the Python child was stopped before it was ready')

/** The child said why it could not start (its `startup_failed` message). */
export const startupFailed = (stage: string, error: string): SandboxError =>
  new SandboxError(`the sandboxed Python could not start (${stage}): ${error}`, {
    suggestion: 'run `ptc-mcp doctor` to check the sandbox backend',
  })

/** The child sent something the protocol does not allow before `ready`. */
export const startupBroken = (reason: string): SandboxError =>
  new SandboxError(`the sandboxed Python broke the protocol during startup: ${reason}`)

/** The process exited before `ready`; `output` is what it printed, shown when there is any. */
export const exitedDuringStartup = (exit: string, output: string): SandboxError =>
  new SandboxError(`the sandboxed Python exited during startup (${exit})${output ? `: ${output}` : ''}`, {
    suggestion: 'run `ptc-mcp doctor` to check Python and the sandbox backend',
  })

/** Any failure of the start as a SandboxError, its message kept. */
export const startError = (error: unknown): SandboxError =>
  error instanceof SandboxError
    ? error
    : new SandboxError(`the sandboxed Python could not start: ${(error as Error).message}`, {cause: error})
