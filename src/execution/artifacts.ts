import {randomUUID} from 'node:crypto'
import {mkdirSync} from 'node:fs'
import {lstat, readdir, rm} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'

/**
 * Files kept after a run (SPEC §14): one directory per run under `execution.artifacts_dir`, pruned
 * when older than 7 days or beyond 1 GiB in total. Nothing here follows a link.
 */

export const ARTIFACT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000
export const ARTIFACTS_MAX_TOTAL_BYTES = 1024 ** 3
/** Most bytes kept per run. */
export const ARTIFACT_MAX_RUN_BYTES = 64 * 1024 * 1024

/** `execution.artifacts_dir`, else $XDG_STATE_HOME/ptc-mcp/artifacts (~/.local/state when unset). */
export function artifactsRoot(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (configured) return configured
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state')
  return join(state, 'ptc-mcp', 'artifacts')
}

/** Creates `<root>/<run-id>/` (private) and returns its path. */
export function createRunDir(root: string): string {
  mkdirSync(root, {recursive: true, mode: 0o700})
  const stamp = new Date().toISOString().replaceAll(/[:.]/g, '-')
  const dir = join(root, `${stamp}-${randomUUID().slice(0, 8)}`)
  mkdirSync(dir, {mode: 0o700})
  return dir
}

/** The artifacts of one run: output over the cap, kept ./out/ files, shown images (`run`). */
export class RunArtifacts {
  private made: string | undefined

  constructor(private readonly root: string) {}

  /** The run's directory, made (private) the first time it is needed. */
  dir(): string {
    this.made ??= createRunDir(this.root)
    return this.made
  }

  /** The run's directory if anything was kept, else undefined. */
  get path(): string | undefined {
    return this.made
  }
}

interface RunDir {
  path: string
  mtimeMs: number
  bytes: number
}

/** The prune in progress per root, and the one asked for while it runs. */
const pruning = new Map<string, {done: Promise<string[]>; again?: Promise<string[]>}>()

/**
 * Removes run directories older than `maxAgeMs`, then the oldest until the rest hold at most
 * `maxTotalBytes`. Entries that are not directories (a link planted there) are removed as links,
 * never followed. Resolves with the paths removed; never rejects. Asynchronous, one at a time per
 * root: the store may hold a week of runs, thousands of files, and serve's event loop must not
 * stall while they are measured (SPEC §15). Asked while one runs, it runs once more after it.
 */
export function pruneArtifacts(
  root: string,
  options: {maxAgeMs?: number; maxTotalBytes?: number; now?: number} = {},
): Promise<string[]> {
  const start = (): Promise<string[]> => {
    const entry: {done: Promise<string[]>; again?: Promise<string[]>} = {
      done: prune(root, options).catch(() => []),
    }
    pruning.set(root, entry)
    entry.done.finally(() => {
      if (pruning.get(root) === entry) pruning.delete(root)
    })
    return entry.done
  }
  const inFlight = pruning.get(root)
  if (!inFlight) return start()
  inFlight.again ??= inFlight.done.then(start)
  return inFlight.again
}

async function prune(
  root: string,
  {
    maxAgeMs = ARTIFACT_MAX_AGE_MS,
    maxTotalBytes = ARTIFACTS_MAX_TOTAL_BYTES,
    now = Date.now(),
  }: {maxAgeMs?: number; maxTotalBytes?: number; now?: number},
): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(root)
  } catch {
    return []
  }
  const removed: string[] = []
  const kept: RunDir[] = []
  for (const name of names) {
    const path = join(root, name)
    let stat
    try {
      stat = await lstat(path)
    } catch {
      continue
    }
    if (!stat.isDirectory() || now - stat.mtimeMs > maxAgeMs) {
      await remove(path, removed)
      continue
    }
    kept.push({path, mtimeMs: stat.mtimeMs, bytes: await treeBytes(path)})
  }
  kept.sort((a, b) => a.mtimeMs - b.mtimeMs)
  let total = kept.reduce((sum, dir) => sum + dir.bytes, 0)
  for (const dir of kept) {
    if (total <= maxTotalBytes) break
    await remove(dir.path, removed)
    total -= dir.bytes
  }
  return removed
}

async function remove(path: string, removed: string[]): Promise<void> {
  try {
    // rm never follows a symlink: a link is removed itself, a directory's links are unlinked.
    await rm(path, {force: true, recursive: true})
    removed.push(path)
  } catch {
    // Another server may prune at the same time.
  }
}

/** Bytes of the regular files in a directory tree, by lstat. */
async function treeBytes(dir: string): Promise<number> {
  let total = 0
  let entries
  try {
    entries = await readdir(dir, {withFileTypes: true})
  } catch {
    return 0
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += await treeBytes(path)
    else if (entry.isFile()) {
      try {
        total += (await lstat(path)).size
      } catch {
        // gone meanwhile
      }
    }
  }
  return total
}
