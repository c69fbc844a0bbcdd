// CPU time of serve and everything under it. A cgroup of the bench's own (cgroup v2, or v1's
// cpuacct) counts every process that ever ran in it, the dead included: /proc cannot, since the
// kernel does not add a process's time to its reaper when it was killed as the init of its PID
// namespace was (measured here: a forked child's ~10 ms showed as ~1.4 ms in its reaper's cutime).
// Without a writable cgroup (not root), the /proc sum stands in, with a note that it undercounts.
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

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

/** `root` and every live process under it, each with its own ticks and its reaped children's. */
function tree(root: number): Map<number, number> {
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
  const found = new Map<number, number>()
  for (const [pid, own] of ticks) {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = parentOf.get(at)) {
      if (at === root) {
        found.set(pid, own)
        break
      }
    }
  }
  return found
}

/** Milliseconds of CPU of `root` and its live descendants, reaped ones included (see above). */
export function treeCpuMs(root: number): number {
  let total = 0
  for (const ticks of tree(root).values()) total += ticks
  return total * TICK_MS
}

/** Where a cgroup of the bench's own can be made, and how its CPU is read (ns). */
const HIERARCHIES = [
  {dir: '/sys/fs/cgroup', usage: (dir: string) => cgroup2Usage(dir)},
  {dir: '/sys/fs/cgroup/unified', usage: (dir: string) => cgroup2Usage(dir)},
  {
    dir: '/sys/fs/cgroup/cpuacct',
    usage: (dir: string) => Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8')),
  },
]

function cgroup2Usage(dir: string): number {
  const usec = /^usage_usec (\d+)$/m.exec(readFileSync(join(dir, 'cpu.stat'), 'utf8'))?.[1]
  return Number(usec) * 1000
}

/** CPU of a process tree from the moment it is made: a cgroup when one can be had, else /proc. */
export interface CpuAccount {
  /** Milliseconds of CPU used by the tree so far (the cgroup's: since `accountTree`). */
  ms(): number
  /** How it is counted, for the results. */
  method: string
  close(): void
}

/**
 * Moves `root` and its descendants into a new cgroup of this bench (their children follow), or
 * counts them from /proc when no cgroup can be made.
 */
export function accountTree(root: number): CpuAccount {
  for (const {dir: base, usage} of HIERARCHIES) {
    const procs = join(base, 'cgroup.procs')
    if (!existsSync(procs)) continue
    const dir = join(base, `ptc-bench-${process.pid}-${root}`)
    try {
      mkdirSync(dir)
      usage(dir)
      for (const pid of [root, ...tree(root).keys()]) writeFileSync(join(dir, 'cgroup.procs'), String(pid))
    } catch {
      try {
        rmdirSync(dir)
      } catch {
        // not made
      }
      continue
    }
    return {
      method: `cgroup ${dir}`,
      ms: () => usage(dir) / 1e6,
      close() {
        // Back where they came from (the hierarchy's root), then the empty cgroup goes.
        for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          try {
            writeFileSync(procs, pid)
          } catch {
            // gone
          }
        }
        try {
          rmdirSync(dir)
        } catch {
          // a process still moving: left for the system
        }
      },
    }
  }
  return {
    method: '/proc (undercounts: a killed namespace init does not pass on its children’s time)',
    ms: () => treeCpuMs(root),
    close() {},
  }
}
