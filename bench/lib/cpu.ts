// CPU time of a process and everything under it, from /proc (SPEC §11: CPU per program, serve and
// its children): user + system of each live process, plus what each has reaped from its children.
import {readFileSync} from 'node:fs'

import {descendants} from './proc.js'

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100

function ticks(pid: number): number {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return 0
  }
  // After the command's closing parenthesis: state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0)
}

/** CPU milliseconds used so far by `root` and its descendants (those reaped included). */
export function treeCpuMs(root: number): number {
  const total = [root, ...descendants(root)].reduce((sum, pid) => sum + ticks(pid), 0)
  return (total * 1000) / TICKS_PER_SECOND
}
