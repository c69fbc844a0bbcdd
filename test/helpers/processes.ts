// Process helpers for tests: spawning a command and collecting what it prints, and the process
// tree, for tests that must prove nothing is left running.
import {spawn} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'

export interface Finished {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Spawns `command` (as `uid`/`gid` when given) with its output piped and collected; SIGKILL after
 * `timeoutMs` (default 45 s), so a hung command fails its test instead of holding the run.
 */
export interface SpawnOptions {
  cwd?: string
  env?: Record<string, string>
  timeoutMs?: number
  uid?: number
  gid?: number
}

export function spawnCollect(
  command: string,
  args: string[],
  options: SpawnOptions = {},
): {pid: number; done: Promise<Finished>} {
  const {cwd, env, uid, gid} = options
  const child = spawn(command, args, {cwd, env, uid, gid, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const done = new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 45_000)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
  return {pid: child.pid!, done}
}

/** Parent pid of every live process, read from /proc (Linux). */
function parentMap(): Map<number, number> {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // The command name may contain spaces and parentheses: fields start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      parents.set(Number(entry), Number(fields[1]))
    } catch {
      // The process exited while we looked.
    }
  }
  return parents
}

/** Every descendant of pid (children, grandchildren...). */
export function descendants(pid: number): number[] {
  const parents = parentMap()
  const found: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    const current = queue.shift()
    for (const [child, parent] of parents) {
      if (parent === current) {
        found.push(child)
        queue.push(child)
      }
    }
  }
  return found
}

/**
 * The program interpreters under `pid`, one per child: spawned ones run runner.py (a bwrap
 * wrapper names it too: not counted); forked ones are the fork server's children (zygote.py under
 * zygote.py; the fork server itself is not counted).
 */
export function programInterpreters(pid: number): number[] {
  const parents = parentMap()
  const isZygote = (candidate: number | undefined): boolean =>
    candidate !== undefined &&
    /zygote\.py/.test(commandLine(candidate)) &&
    !/\bbwrap\b/.test(commandLine(candidate))
  return descendants(pid).filter((child) => {
    const command = commandLine(child)
    if (/zygote\.py/.test(command) && !/\bbwrap\b/.test(command)) {
      return isZygote(parents.get(child))
    }
    return /runner\.py/.test(command) && !/\bbwrap\b/.test(command)
  })
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
  } catch {
    return ''
  }
}
