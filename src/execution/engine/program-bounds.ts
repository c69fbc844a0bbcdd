import type {ExecutionConfig} from '../../config/schema.js'
import type {ProgramBounds} from '../../sandbox/backend.js'
import type {ChildLimits} from '../protocol/protocol.js'

import {
  CHILD_BASE_ADDRESS_SPACE_BYTES,
  MAX_FILE_SIZE_BYTES,
  MAX_OPEN_FILES,
  MAX_PROGRAM_THREADS,
  SCRATCH_BYTES_PER_FILE,
} from '../../shared/limits.js'

/** Rlimits every child sets on itself (SPEC §7), derived from the execution config. */
export function childLimits(execution: ExecutionConfig): ChildLimits {
  return {
    cpu_seconds: execution.timeout_seconds + 2,
    // A few parsed results of the largest size on top of the interpreter and thread stacks.
    address_space_bytes: CHILD_BASE_ADDRESS_SPACE_BYTES + 8 * execution.max_tool_result_bytes,
    file_size_bytes: Math.min(MAX_FILE_SIZE_BYTES, execution.max_scratch_bytes),
    open_files: MAX_OPEN_FILES,
  }
}

/** Per-program bounds the sandbox enforces (SPEC §15), from the execution config. */
export function programBounds(execution: ExecutionConfig): ProgramBounds {
  return {
    scratchBytes: execution.max_scratch_bytes,
    scratchFiles: Math.max(1024, Math.floor(execution.max_scratch_bytes / SCRATCH_BYTES_PER_FILE)),
    threads: MAX_PROGRAM_THREADS,
  }
}
