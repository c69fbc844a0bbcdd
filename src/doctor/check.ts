// One doctor check and how checks run: what checks.ts and the checks of one area (flows-check.ts,
// programs-check.ts) share.
import {PtcError} from '../shared/errors.js'

export type CheckStatus = 'pass' | 'warn' | 'fail'

export interface CheckResult {
  id: string
  title: string
  status: CheckStatus
  detail: string
  /** What to do about a warn or fail, in one line. */
  fix?: string
  ms: number
}

export interface DoctorCheck {
  id: string
  title: string
  run(): Promise<Omit<CheckResult, 'id' | 'ms' | 'title'>>
}

/** Runs every check concurrently, timing each; a check that throws is a fail, never a crash. */
export function runChecks(checks: DoctorCheck[]): Promise<CheckResult[]> {
  return Promise.all(checks.map((check) => runCheck(check)))
}

export async function runCheck(check: DoctorCheck): Promise<CheckResult> {
  const started = performance.now()
  const result = await check.run().catch((error: unknown) => failure(error))
  return {id: check.id, title: check.title, ...result, ms: Math.round(performance.now() - started)}
}

/** A check's failure from what it threw: a user's problem (PtcError) with its fix, else the message. */
export function failure(error: unknown): Omit<CheckResult, 'id' | 'ms' | 'title'> {
  if (error instanceof PtcError) return {status: 'fail', detail: error.message, fix: error.suggestion}
  return {status: 'fail', detail: error instanceof Error ? error.message : String(error)}
}
