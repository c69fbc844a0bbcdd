import {execFileSync} from 'node:child_process'
// CPU time of a process tree from /proc: each live process's own time and that of the children it
// has reaped (utime + stime + cutime + cstime), summed over the tree. A child reaped inside the
// tree is counted once, in its reaper's cutime; one still alive (or a zombie), in its own.
import {readdirSync, readFileSync} from 'node:fs'

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], {encoding: 'utf8'}).trim())

function stat(pid: string): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command (which may hold spaces): state is field 3.
    return text.slice(text.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/** Milliseconds of CPU used by `root` and every process under it, reaped ones included. */
export function treeCpuMs(root: number): number {
  const parentOf = new Map<number, number>()
  const ticks = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const fields = stat(name)
    if (!fields) continue
    // From field 3 (index 0): ppid is field 4, utime..cstime fields 14-17.
    parentOf.set(Number(name), Number(fields[1]))
    ticks.set(Number(name), Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]))
  }
  let total = 0
  for (const [pid, own] of ticks) {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = parentOf.get(at)) {
      if (at === root) {
        total += own
        break
      }
    }
  }
  return total * TICK_MS
}
