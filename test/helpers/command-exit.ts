// For @oclif/test's runCommand: the package root it loads the commands from (package.json "oclif", so the
// built dist/), and the exit code a command leaves on process.exitCode, which runCommand does not report.
import {fileURLToPath} from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** `run` with the exit code the command set, which is reset so the next run starts clean. */
export function withExitCode<T extends object>(run: T): T & {exitCode: typeof process.exitCode} {
  const {exitCode} = process
  process.exitCode = undefined
  return {...run, exitCode}
}
