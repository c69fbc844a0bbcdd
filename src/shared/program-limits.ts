import {
  CHILD_BASE_ADDRESS_SPACE_BYTES,
  DEFAULT_MAX_SCRATCH_BYTES,
  MAX_FILE_SIZE_BYTES,
  MAX_OPEN_FILES,
  MAX_PROGRAM_THREADS,
  SCRATCH_BYTES_PER_FILE,
} from './limits.js'

/**
 * The limits of one program, built in one place from the config's `execution:` keys: the rlimits the
 * child sets on itself (SPEC §7) and the bounds its sandbox enforces (SPEC §15). A new limit is its
 * config key (`src/config/schema.ts`), its line here, and the place that enforces it
 * (ARCHITECTURE.md, "A limit"); `program-limits.places.test.ts` lists where each is read.
 */

/** The `execution:` keys the limits are made from (the config's ExecutionConfig has them). */
export interface LimitSettings {
  timeout_seconds: number
  max_tool_result_bytes: number
  max_scratch_bytes: number
}

/** Rlimits the child sets on itself before confinement (runner.py); soft = hard, except the CPU's. */
export interface ChildLimits {
  /** The CPU limit: SIGXCPU at it, which the parent names as the cause. */
  cpu_seconds: number
  /** A second above: the kernel's SIGKILL, for a program that ignores SIGXCPU. */
  cpu_hard_seconds: number
  address_space_bytes: number
  file_size_bytes: number
  open_files: number
}

/** Per-program bounds a sandbox backend enforces where its platform allows (SPEC §15). */
export interface ProgramBounds {
  /** Bytes the program may keep in its scratch directory (execution.max_scratch_bytes). */
  scratchBytes: number
  /** Files and directories it may keep there: one per SCRATCH_BYTES_PER_FILE, at least 1024. */
  scratchFiles: number
  /** Threads (the only tasks a sandboxed program can start). */
  threads: number
}

export interface ProgramLimits {
  child: ChildLimits
  bounds: ProgramBounds
}

/** A program's limits, from the execution config. */
export function programLimits(settings: LimitSettings): ProgramLimits {
  // Two seconds past the wall clock: a CPU-bound program meets the deadline, not SIGXCPU, first.
  const cpuSeconds = settings.timeout_seconds + 2
  return {
    child: {
      cpu_seconds: cpuSeconds,
      cpu_hard_seconds: cpuSeconds + 1,
      // A few parsed results of the largest size on top of the interpreter and thread stacks.
      address_space_bytes: CHILD_BASE_ADDRESS_SPACE_BYTES + 8 * settings.max_tool_result_bytes,
      file_size_bytes: Math.min(MAX_FILE_SIZE_BYTES, settings.max_scratch_bytes),
      open_files: MAX_OPEN_FILES,
    },
    bounds: scratchBounds(settings.max_scratch_bytes),
  }
}

function scratchBounds(bytes: number): ProgramBounds {
  return {
    scratchBytes: bytes,
    scratchFiles: Math.max(1024, Math.floor(bytes / SCRATCH_BYTES_PER_FILE)),
    threads: MAX_PROGRAM_THREADS,
  }
}

/** The bounds when a launch names none: SPEC §15's defaults. */
export const DEFAULT_BOUNDS: ProgramBounds = scratchBounds(DEFAULT_MAX_SCRATCH_BYTES)
