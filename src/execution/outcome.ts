import type {RunOutcome} from './engine.js'

/** The structured content of execute_program, also what `run --json` prints (SPEC §5). */
export type StructuredOutcome = Omit<RunOutcome, 'text'>

export function structuredOutcome({text: _text, ...rest}: RunOutcome): StructuredOutcome {
  return {...rest, result: rest.result ?? null}
}
