import {randomUUID} from 'node:crypto'
import {lstatSync, mkdirSync} from 'node:fs'
import {lstat, opendir, rm} from 'node:fs/promises'
import {dirname, join} from 'node:path'

import {ARTIFACT_MAX_AGE_MS, ARTIFACTS_MAX_TOTAL_BYTES} from '../shared/limits.js'
import {makeDirs} from '../shared/make-dirs.js'
import {effectiveUid, openPrivateDir, privateDirProblem, removeTreeAt} from '../shared/private-dir.js'
import {xdgHome} from '../shared/xdg.js'

/**
 * Files kept after a run (SPEC §14): one directory per run under `execution.artifacts_dir`, pruned
 * when older than 7 days or beyond 1 GiB in total. The root is held to the scratch root's rule (a
 * private directory of this user, see private-dir.ts) before anything is written or removed there,
 * and pruning works through a descriptor of it: nothing here follows a link.
 */

/** `execution.artifacts_dir`, else $XDG_STATE_HOME/ptc-mcp/artifacts (~/.local/state when unset). */
export function artifactsRoot(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (configured) return configured
  return join(xdgHome('state', env), 'ptc-mcp', 'artifacts')
}

/**
 * Creates the artifacts root when missing (its parents as needed, itself 0700) and checks it: a
 * directory, not a link, owned by this user, closed to others. Throws the problem with the fix.
 */
export function ensureArtifactsRoot(root: string): void {
  try {
    makeDirs(dirname(root))
    mkdirSync(root, {mode: 0o700})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw artifactsRootError(root, (error as Error).message)
  }
  const problem = privateDirProblem(lstatSync(root), effectiveUid())
  if (problem) throw artifactsRootError(root, `${root} ${problem}`)
}

/** The artifacts root's problem with the fix, if it exists and breaks the rule; else undefined. */
export function artifactsRootProblem(root: string): string | undefined {
  let stats
  try {
    stats = lstatSync(root)
  } catch {
    return undefined
  }
  const problem = privateDirProblem(stats, effectiveUid())
  return problem && artifactsRootError(root, `${root} ${problem}`).message
}

function artifactsRootError(root: string, problem: string): Error {
  return new Error(
    `the artifacts directory cannot be used: ${problem}; nothing is kept there. Fix: remove ${root} (ptc-mcp creates it again, private), or set execution.artifacts_dir to a directory of this user that only it can enter (chmod 700)`,
  )
}

/** Creates `<root>/<run-id>/` (private) and returns its path; the root is checked first. */
export function createRunDir(root: string): string {
  ensureArtifactsRoot(root)
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
  name: string
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
  // A root that is a link, another user's, or open to others is not touched at all.
  const handle = await openPrivateDir(root).catch(() => {})
  if (!handle) return []
  try {
    // On Linux every step goes through the root's descriptor; elsewhere (macOS) by path, once
    // the root has passed the check.
    const linux = process.platform === 'linux'
    const at = linux ? `/proc/self/fd/${handle.fd}` : root
    const uid = effectiveUid()
    const removed: string[] = []
    const kept: RunDir[] = []
    const remove = async (name: string): Promise<void> => {
      try {
        await (linux ? removeTreeAt(handle.fd, name) : rm(join(root, name), {force: true, recursive: true}))
        removed.push(join(root, name))
      } catch {
        // Another server may prune at the same time.
      }
    }
    for (const name of await names(at)) {
      const stat = await lstat(`${at}/${name}`).catch(() => {})
      // Only this user's own entries: nothing else can be there unless root put it there.
      if (stat?.uid !== uid) continue
      if (!stat.isDirectory() || now - stat.mtimeMs > maxAgeMs) {
        await remove(name)
        continue
      }
      kept.push({name, mtimeMs: stat.mtimeMs, bytes: await treeBytes(`${at}/${name}`)})
    }
    kept.sort((a, b) => a.mtimeMs - b.mtimeMs)
    let total = kept.reduce((sum, dir) => sum + dir.bytes, 0)
    for (const dir of kept) {
      if (total <= maxTotalBytes) break
      await remove(dir.name)
      total -= dir.bytes
    }
    return removed
  } finally {
    await handle.close()
  }
}

/** The names in a directory, read in batches. */
async function names(dir: string): Promise<string[]> {
  const found: string[] = []
  try {
    for await (const entry of await opendir(dir, {bufferSize: 128})) found.push(entry.name)
  } catch {
    // gone meanwhile
  }
  return found
}

/** Bytes of the regular files in a directory tree, by lstat (a link is never followed). */
async function treeBytes(dir: string, depth = 0): Promise<number> {
  let total = 0
  let listing
  try {
    listing = await opendir(dir, {bufferSize: 128})
  } catch {
    return 0
  }
  for await (const entry of listing) {
    const path = join(dir, entry.name)
    if (entry.isDirectory() && depth < 64) total += await treeBytes(path, depth + 1)
    else if (entry.isFile())
      total += await lstat(path).then(
        (stats) => stats.size,
        () => 0,
      )
  }
  return total
}

export {MAX_KEPT_BYTES as ARTIFACT_MAX_RUN_BYTES} from '../shared/limits.js'
