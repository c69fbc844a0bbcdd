// What a backend's escape probe tries (probe.py's vocabulary): the part of the probe a backend
// names in its SandboxBackend.probe, apart from probe.ts, which runs the probe through a backend.

/** probe.py's ATTEMPTS: each must be refused where a backend lists it. */
export type EscapeAttempt =
  | 'fork'
  | 'list /Users'
  | 'read /etc/passwd'
  | 'read outside'
  | 'signal the parent'
  | 'socket'
  | 'spawn'
  | 'unix socket'
  | 'write outside'

/** probe.py's WORKS: what programs need, which must still work. */
export type ProbeControl = 'scratch' | 'socketpair' | 'thread'

/** What one backend's probe tries (SandboxBackend.probe). */
export interface ProbePlan {
  /** Must be refused (by `none`: shown by doctor as what a program can do). */
  refuse: readonly EscapeAttempt[]
  /** Must still work. */
  work: readonly ProbeControl[]
}
