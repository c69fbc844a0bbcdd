// What /proc says about a process: its memory, and the program children it keeps ready.
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'

function readProc(pid: number | string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8')
  } catch {
    return ''
  }
}

export function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
}

export interface Memory {
  rss: number
  hwm: number
}

/** Resident and peak resident bytes (VmRSS, VmHWM). */
export function memory(pid: number): Memory {
  const status = readProc(pid, 'status')
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return {rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024}
}

/** Resets the process's peak RSS (VmHWM) to its current RSS. */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

export function descendants(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = readProc(name, 'stat')
    if (!stat) continue
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    const siblings = children.get(ppid) ?? []
    siblings.push(Number(name))
    children.set(ppid, siblings)
  }
  const found: number[] = []
  const queue = [root]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

/**
 * Program children of a serve process that wait for a program: the runner sits in its event
 * loop's epoll_wait only once it is confined and loaded.
 */
export function readyChildren(servePid: number): number {
  return descendants(servePid).filter(
    (pid) => readProc(pid, 'cmdline').includes('runner') && readProc(pid, 'wchan') === 'do_epoll_wait',
  ).length
}

/**
 * The proportional memory (PSS, smaps_rollup) of the fork server's children under a serve process:
 * the ready children, in bytes. 0 without a fork server.
 */
export function forkServerChildrenPss(servePid: number): number {
  const all = descendants(servePid)
  const isZygote = (pid: number) => readProc(pid, 'cmdline').includes('zygote.py')
  const parentOf = (pid: number) => Number(readProc(pid, 'stat').split(') ')[1]?.split(' ')[1])
  const server = all.find((pid) => isZygote(pid) && !isZygote(parentOf(pid)))
  if (server === undefined) return 0
  let kb = 0
  for (const pid of descendants(server))
    kb += Number(/^Pss:\s+(\d+) kB/m.exec(readProc(pid, 'smaps_rollup'))?.[1] ?? 0)
  return kb * 1024
}
