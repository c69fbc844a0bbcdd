// One small interface for every sandbox backend (SPEC §7). A backend turns "run this interpreter
// with these arguments" into the command that runs it confined, and says what the child must apply
// to itself before it reads the program (the bootstrap's `confine` step). The backends themselves
// are listed in index.ts.
import type {ProbePlan} from './probe-plan.js'

import {DEFAULT_MAX_SCRATCH_BYTES, MAX_PROGRAM_THREADS, SCRATCH_BYTES_PER_FILE} from '../shared/limits.js'

/** The way out when no sandbox can run here, in every message that says so (confine.py writes it too). */
export const NO_ISOLATION_FIX = 'set execution.sandbox: none to run programs without isolation'

export interface PythonInfo {
  /** Real interpreter path (a pyenv shim resolved to sys.executable). */
  executable: string
  version: string
  /** sys.prefix, sys.base_prefix, sys.exec_prefix and sys.base_exec_prefix, deduplicated. */
  prefixes: string[]
  /** Directories the interpreter imports the standard library from. */
  stdlibPaths: string[]
}

/** Per-program bounds a backend enforces where its platform allows (SPEC §15). */
export interface ProgramBounds {
  /** Bytes the program may keep in its scratch directory (execution.max_scratch_bytes). */
  scratchBytes: number
  /** Files and directories it may keep there. */
  scratchFiles: number
  /** Threads (the only tasks a sandboxed program can start). */
  threads: number
}

/** How each bound is enforced on this host, in words (`threads: "256 (user namespace)"`). */
export interface BoundsInForce {
  threads: string
  memory: string
  scratch: string
}

export interface LaunchRequest {
  python: PythonInfo
  /** Arguments after the interpreter (`-I -S -B runner.py ...`). */
  pythonArgs: string[]
  /** Per-run scratch directory: the only writable place. */
  scratchDir: string
  /** Directories of ptc-mcp's own Python files the child must read (the runner, the confine module). */
  runtimePaths: string[]
  env: Record<string, string>
  /** Default: DEFAULT_BOUNDS. */
  bounds?: ProgramBounds
  /**
   * The child is forked by the backend's fork server (`forkServer`), in namespaces of its own:
   * only the returned `confine` is used, to be sent to it.
   */
  forked?: boolean
}

/** What a fork server is started with (see SandboxBackend.forkServer). */
export interface ForkServerRequest {
  python: PythonInfo
  /** runner.py, which the fork server loads once for all its children. */
  runnerPath: string
  /** Directories of ptc-mcp's own Python files it reads. */
  runtimePaths: string[]
  /** The unix socket children connect back to, in `socketDir` (private to this user). */
  socketPath: string
  socketDir: string
  /** Where the children's scratch directories are made (sandbox/scratch.ts). */
  scratchRoot: string
}

/** The bounds when the request names none: SPEC §15's defaults. */
export const DEFAULT_BOUNDS: ProgramBounds = {
  scratchBytes: DEFAULT_MAX_SCRATCH_BYTES,
  scratchFiles: DEFAULT_MAX_SCRATCH_BYTES / SCRATCH_BYTES_PER_FILE,
  threads: MAX_PROGRAM_THREADS,
}

export interface Launch {
  command: string
  args: string[]
  env: Record<string, string>
  /**
   * Passed to the child's bootstrap, which applies it to itself before reading the program
   * (Landlock, seccomp, uid drop, rlimits). JSON-serialisable; null when nothing to apply.
   */
  confine: Record<string, unknown> | null
  /** The layer in force, reported with every run (e.g. "linux:bwrap+landlock+seccomp", "none"). */
  tier: string
}

export interface SandboxBackend {
  /** Its name in the BACKENDS table (index.ts): the value of `execution.sandbox` that selects it. */
  readonly name: string
  /**
   * What the escape probe (probe.py) tries against this backend, at its own check and in `doctor`.
   * Default: DEFAULT_PROBE (the attempts every sandbox refuses; the scratch dir works).
   */
  readonly probe?: ProbePlan
  /**
   * Resolves with the tier this backend reaches here and the per-program bounds in force (SPEC
   * §15, shown by `doctor`); throws SandboxError (with the fix) when unavailable.
   */
  check(python: PythonInfo): Promise<{tier: string; bounds?: BoundsInForce}>
  launch(request: LaunchRequest): Promise<Launch>
  /**
   * The command of a fork server (zygote) that makes this backend's children, confined each in
   * namespaces of its own, from an interpreter that has everything loaded (SPEC §7 `warm_pool`).
   * Absent, or throwing SandboxError: children are started one by one with `launch`.
   */
  forkServer?(request: ForkServerRequest): Promise<Omit<Launch, 'confine'>>
}

/**
 * The usual tier: what each OS backend reaches when nothing is missing (SPEC §5). Structured
 * content names the sandbox only when a run had another (less confinement, or none).
 */
export const USUAL_SANDBOX_TIERS: readonly string[] = ['linux:bwrap+landlock+seccomp', 'seatbelt']
