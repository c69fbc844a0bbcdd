// Runs an oclif command in-process with stdout and stderr captured.
import {fileURLToPath} from 'node:url'
import {vi} from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface CommandRun<T> {
  result?: T
  error?: Error & {oclif?: {exit?: number}; code?: string}
  stdout: string
  stderr: string
  exitCode: number | string | undefined
}

interface RunnableCommand {
  run(argv?: string[], root?: string): Promise<unknown>
}

function capture(sink: string[]) {
  return (chunk: string | Uint8Array) => {
    sink.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    return true
  }
}

/** `T` is what the command's `run()` returns. */
export async function runCommand<T>(command: RunnableCommand, argv: string[]): Promise<CommandRun<T>> {
  const out: string[] = []
  const err: string[] = []
  const stdout = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation(capture(out) as typeof process.stdout.write)
  const stderr = vi
    .spyOn(process.stderr, 'write')
    .mockImplementation(capture(err) as typeof process.stderr.write)
  const run: CommandRun<T> = {stdout: '', stderr: '', exitCode: undefined}
  try {
    run.result = (await command.run(argv, ROOT)) as T
  } catch (error) {
    run.error = error as CommandRun<T>['error']
  } finally {
    stdout.mockRestore()
    stderr.mockRestore()
  }
  run.stdout = out.join('')
  run.stderr = err.join('')
  run.exitCode = process.exitCode
  process.exitCode = undefined
  return run
}
