import {type FSWatcher, lstatSync, type Stats, watch} from 'node:fs'
import {lstat, readdir} from 'node:fs/promises'
import {join} from 'node:path'

/** Limits a watched scratch directory is held to (when it is on the host's file system). */
export interface ScratchLimits {
  bytes: number
  files: number
}

/** Shortest pause between two looks at a watched scratch directory. */
const WATCH_INTERVAL_MS = 100

/**
 * Watches a scratch directory that lives on the host's file system (the landlock-only tier where
 * no private tmpfs could be mounted) and calls `onOver` once when the space its files take or the
 * count of its entries goes over its limit (the caller then kills the program). Two ways at once:
 * every write is seen as it happens (inotify, through fs.watch on each directory: the file written
 * is measured at once, so the bound is passed by at most what lands while the event reaches this
 * process, and each file is at most RLIMIT_FSIZE); and the whole tree is measured now and then, for
 * what events cannot show (more directories than are watched). Links are counted, never followed.
 * A big tree is measured less often, so that watching never costs the server more than a fraction
 * of its time. Returns the function that stops watching.
 */
export function watchScratch(
  dir: string,
  limits: ScratchLimits,
  onOver: (reason: string) => void,
): () => void {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const over = (reason: string): void => {
    if (stopped) return
    stopped = true
    stopEvents()
    onOver(reason)
  }
  const stopEvents = watchWrites(dir, limits, (what) =>
    over(
      what === 'bytes'
        ? `the program kept more than ${limits.bytes} bytes in its scratch directory (execution.max_scratch_bytes)`
        : `the program kept more than ${limits.files} files in its scratch directory`,
    ),
  )
  const look = async (): Promise<void> => {
    const started = Date.now()
    const usage = await measure(dir, limits.files).catch(() => null)
    if (stopped) return
    if (usage && usage.bytes > limits.bytes) {
      over(
        `the program kept more than ${limits.bytes} bytes in its scratch directory (execution.max_scratch_bytes)`,
      )
      return
    }
    if (usage && usage.files > limits.files) {
      over(`the program kept more than ${limits.files} files in its scratch directory`)
      return
    }
    timer = setTimeout(lookSoon, Math.max(WATCH_INTERVAL_MS, 4 * (Date.now() - started)))
    timer.unref()
  }
  function lookSoon(): void {
    look().catch(() => {})
  }

  timer = setTimeout(lookSoon, WATCH_INTERVAL_MS)
  timer.unref()
  return () => {
    stopped = true
    stopEvents()
    clearTimeout(timer)
  }
}

/** Directories watched for events per scratch directory (each holds an inotify watch). */
const MAX_WATCHED_DIRS = 256

/**
 * Calls `onOver` when the files written under `dir` (as events report them) take more than
 * `limits.bytes`, or are more than `limits.files`: each event's file is measured at once (lstat: allocated blocks) and the total kept up
 * to date. New directories are watched as they appear, up to MAX_WATCHED_DIRS.
 */
function watchWrites(
  dir: string,
  limits: ScratchLimits,
  onOver: (what: 'bytes' | 'files') => void,
): () => void {
  const watchers: FSWatcher[] = []
  const sizes = new Map<string, number>()
  let total = 0
  let done = false
  const stop = (): void => {
    done = true
    for (const watcher of watchers) watcher.close()
    watchers.length = 0
  }
  const seen = (path: string): void => {
    if (done) return
    let stats: Stats | undefined
    try {
      stats = lstatSync(path)
    } catch {
      stats = undefined
    }
    if (stats?.isDirectory()) {
      if (!sizes.has(path)) watchDir(path)
      sizes.set(path, 0)
      return
    }
    const size = stats?.isFile() ? stats.blocks * 512 : 0
    total += size - (sizes.get(path) ?? 0)
    if (stats) sizes.set(path, size)
    else sizes.delete(path)
    if (total > limits.bytes || sizes.size > limits.files) {
      stop()
      onOver(total > limits.bytes ? 'bytes' : 'files')
    }
  }
  function watchDir(path: string): void {
    if (watchers.length >= MAX_WATCHED_DIRS) return
    try {
      const watcher = watch(path, {persistent: false}, (_event, name) => {
        if (name) seen(join(path, name))
      })
      watcher.on('error', () => watcher.close())
      watchers.push(watcher)
    } catch {
      // Gone meanwhile, or no inotify: the measuring of the whole tree remains.
    }
  }
  watchDir(dir)
  return stop
}

/** Bytes on disk (allocated blocks) and entries under `dir`; stops counting past `maxFiles`. */
async function measure(dir: string, maxFiles: number): Promise<{bytes: number; files: number}> {
  const usage = {bytes: 0, files: 0}
  const pending = [dir]
  while (pending.length > 0 && usage.files <= maxFiles) {
    const current = pending.pop()!
    let entries
    try {
      entries = await readdir(current, {withFileTypes: true})
    } catch {
      continue
    }
    for (const entry of entries) {
      usage.files++
      const path = join(current, entry.name)
      if (entry.isDirectory()) pending.push(path)
      else if (entry.isFile())
        usage.bytes += await lstat(path).then(
          (stats) => stats.blocks * 512,
          () => 0,
        )
      if (usage.files > maxFiles) break
    }
  }
  return usage
}
