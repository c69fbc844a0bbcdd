export {helpersOf, PROGRAM_HELPERS, type ProgramLookup} from './calls/program-helpers.js'
export {serversNamedBy} from './calls/program-servers.js'

export {ENDED_BEFORE_FINISH} from './calls/tool-calls.js'
/**
 * The way into execution/ (the program engine: slots, children, the channel, calls, outcome) from
 * the rest of src/: nothing outside this folder imports past this file (eslint.config.js).
 * The engine itself, with the children, the warm pool and the fork server, loads on first use
 * (`loadProgramEngine`): serve answers its client before it starts Python.
 */
export type {ProgramEngine} from './engine/engine.js'
export {resolvePython} from './engine/python.js'

export {MAX_KEPT_BYTES, MAX_KEPT_FILES} from './files/kept-files.js'

export {CHARS_PER_TOKEN, fitAnswer} from './outcome/answer-limit.js'
export {traceLines} from './outcome/format.js'
export {composeOutcome, type RunOutcome, startFailureOutcome} from './outcome/outcome.js'
export {type StructuredOutcome, structuredOutcome} from './outcome/structured-outcome.js'
export type {ToolCallTrace} from './outcome/trace.js'

export {KeptState} from './state/kept-state.js'
export {readStateFile, writeStateFile} from './state/state-file.js'

/** The engine's module: slots, children, the warm pool (loaded on first use). */
export async function loadProgramEngine(): Promise<typeof import('./engine/engine.js')> {
  return import('./engine/engine.js')
}
