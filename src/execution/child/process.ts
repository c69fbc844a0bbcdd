/**
 * A child as a fresh process: the sandbox backend turns "run runner.py" into a confined command,
 * which is spawned in a process group of its own so that it and everything it forks can be killed
 * at once.
 */
import type {Socket} from 'node:net'

import {spawn} from 'node:child_process'
import {dirname} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {LaunchRequest, SandboxBackend} from '../../sandbox/backend.js'
import type {ChildExit, ChildSpawner, SpawnedChild, SpawnRequest} from './spawner.js'

import {SandboxError} from '../../shared/errors.js'
import {signalName} from './signal-name.js'

/** The bootstrap every child runs (copied next to the compiled files by scripts/copy-assets.js). */
export const RUNNER_PATH = fileURLToPath(new URL('../runner/runner.py', import.meta.url))

/** The environment of every child: nothing of the server's own (SPEC §7). */
export function childEnvironment(scratchDir: string): Record<string, string> {
  return {
    HOME: scratchDir,
    TMPDIR: scratchDir,
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONIOENCODING: 'utf8',
  }
}

/** What the backend is asked for to run runner.py for `request`. */
export function runnerLaunch(request: SpawnRequest): LaunchRequest {
  return {
    python: request.python,
    pythonArgs: ['-I', '-S', '-B', RUNNER_PATH],
    scratchDir: request.scratchDir,
    runtimePaths: [dirname(RUNNER_PATH)],
    env: request.env,
    bounds: request.bounds,
  }
}

/** Each child a new interpreter, confined by `backend`. */
export function spawnThroughBackend(backend: SandboxBackend): ChildSpawner {
  return {
    async spawn(request: SpawnRequest): Promise<SpawnedChild> {
      const launch = await backend.launch(runnerLaunch(request))
      return spawnGroup(launch.command, launch.args, {
        cwd: request.scratchDir,
        env: launch.env,
        tier: launch.tier,
        confine: launch.confine,
      })
    },
  }
}

function spawnGroup(
  command: string,
  args: string[],
  options: {cwd: string; env: Record<string, string>; tier: string; confine: Record<string, unknown> | null},
): SpawnedChild {
  const proc = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
  })
  const channel = proc.stdio[3] as Socket | null
  if (!channel) {
    killGroup(proc.pid)
    throw new SandboxError('the Python child has no private channel')
  }
  const listeners: ((exit: ChildExit) => void)[] = []
  let exited: ChildExit | undefined
  let failure: Error | undefined
  const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (exited) return
    // Anything the program forked is still in the group: kill it before the pid can be reused.
    killGroup(proc.pid)
    exited = {code, signal, ...(failure && {failure})}
    for (const listener of listeners) listener(exited)
  }
  proc.on('error', (error) => {
    failure ??= error
    // A failed spawn emits no 'exit'.
    if (proc.pid === undefined) {
      channel.destroy()
      onExit(null, null)
    }
  })
  proc.on('exit', onExit)
  for (const stream of [proc.stdout, proc.stderr, channel]) stream?.on('error', () => {})
  return {
    tier: options.tier,
    confine: options.confine,
    stdout: proc.stdout,
    stderr: proc.stderr,
    channel,
    kill() {
      if (!exited) killGroup(proc.pid)
    },
    onExit(listener) {
      if (exited) listener(exited)
      else listeners.push(listener)
    },
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

/**
 * The exit in words, for messages: "exited with code 1", "hit its CPU time limit (...)".
 * `cpuSeconds`: the CPU limit the child set itself (RLIMIT_CPU), named when it is what ended it.
 */
export function describeExit({code, signal, failure}: ChildExit, cpuSeconds?: number): string {
  if (failure && code === null && signal === null) return `could not be started: ${failure.message}`
  // A wrapper (bwrap) reports its child's death by signal N as exit code 128 + N.
  const wrapped = code !== null && code > 128 ? signalName(code - 128) : undefined
  if (signal === 'SIGXCPU' || wrapped === 'SIGXCPU') return cpuLimitText(cpuSeconds)
  if (signal) return `was killed by ${signal}`
  return `exited with code ${String(code)}${wrapped ? ` (killed by ${wrapped}?)` : ''}`
}

function cpuLimitText(cpuSeconds: number | undefined): string {
  if (cpuSeconds === undefined) return 'hit its CPU time limit'
  return (
    `hit its CPU time limit (${cpuSeconds} s of CPU time: execution.timeout_seconds + 2; ` +
    'CPU time counts on while an approval question stops the clock)'
  )
}
