import {constants} from 'node:os'

/** This system's signal names by number, the first name of each (SIGABRT, not SIGIOT), made once. */
const NAMES = new Map<number, NodeJS.Signals>()
for (const [name, number] of Object.entries(constants.signals)) {
  if (!NAMES.has(number)) NAMES.set(number, name as NodeJS.Signals)
}

/** The name of signal `number` (SIGKILL for 9), or undefined for a number that names none. */
export function signalName(number: number): NodeJS.Signals | undefined {
  return NAMES.get(number)
}
