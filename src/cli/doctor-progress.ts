import {Listr} from 'listr2'

import {type CheckResult, type DoctorCheck, runCheck} from '../doctor/check.js'
import {formatCheckDetail} from './display.js'
import {ensureTerminalWidth} from './terminal-width.js'

/** Runs the checks concurrently with a listr2 view on the terminal; returns the results in order. */
export async function runChecksWithProgress(checks: DoctorCheck[]): Promise<CheckResult[]> {
  const results: CheckResult[] = []
  ensureTerminalWidth()
  const tasks = new Listr(
    checks.map((check, index) => ({
      title: check.title,
      async task(_ctx: unknown, task: {title: string; skip(message: string): void}) {
        const result = await runCheck(check)
        results[index] = result
        task.title = `${check.title}: ${formatCheckDetail(result)}`
        if (result.status === 'fail') throw new Error(`${check.title}: ${formatCheckDetail(result)}`)
        if (result.status === 'warn') task.skip(`${check.title}: ${formatCheckDetail(result)}`)
      },
    })),
    {
      concurrent: true,
      exitOnError: false,
      collectErrors: false,
      // Ctrl-C is the command's (it stops the checks and cleans up); listr2's own exits 127 at once.
      registerSignalListeners: false,
      rendererOptions: {collapseErrors: false},
    },
  )
  await tasks.run().catch(() => {}) // failures are in `results`
  return results
}
