import type {ExecutionConfig} from '../config/schema.js'
import type {ProgramBounds} from '../sandbox/backend.js'
import type {ChildLimits} from './protocol.js'

/** Rlimits every child sets on itself (SPEC §7), derived from the execution config. */
export function childLimits(execution: ExecutionConfig): ChildLimits {
  return {
    cpu_seconds: execution.timeout_seconds + 2,
    // Room for the interpreter, a few parsed results of the largest size, and thread stacks.
    address_space_bytes: 2 * 1024 ** 3 + 8 * execution.max_tool_result_bytes,
    file_size_bytes: Math.min(64 * 1024 ** 2, execution.max_scratch_bytes),
    open_files: 256,
  }
}

/** Threads a program may run at once (SPEC §15). */
const MAX_THREADS = 256
/** Bytes of scratch per file the program may keep: its inode bound follows its byte bound. */
const SCRATCH_BYTES_PER_FILE = 4096

/** Per-program bounds the sandbox enforces (SPEC §15), from the execution config. */
export function programBounds(execution: ExecutionConfig): ProgramBounds {
  return {
    scratchBytes: execution.max_scratch_bytes,
    scratchFiles: Math.max(1024, Math.floor(execution.max_scratch_bytes / SCRATCH_BYTES_PER_FILE)),
    threads: MAX_THREADS,
  }
}
