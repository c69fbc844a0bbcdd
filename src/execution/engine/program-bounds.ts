import type {ExecutionConfig} from '../../config/schema.js'
import type {ProgramBounds} from '../../sandbox/backend.js'
import type {ChildLimits} from '../protocol/protocol.js'

import {programLimits} from '../../shared/program-limits.js'

/** Rlimits every child sets on itself (SPEC §7), derived from the execution config. */
export function childLimits(execution: ExecutionConfig): ChildLimits {
  return programLimits(execution).child
}

/** Per-program bounds the sandbox enforces (SPEC §15), from the execution config. */
export function programBounds(execution: ExecutionConfig): ProgramBounds {
  return programLimits(execution).bounds
}
