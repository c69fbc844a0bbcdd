import {randomUUID} from 'node:crypto'
import {lstatSync, mkdirSync} from 'node:fs'
import {lstat, opendir, rm} from 'node:fs/promises'
import {join} from 'node:path'

import {ARTIFACT_MAX_AGE_MS, ARTIFACTS_MAX_TOTAL_BYTES} from '../../shared/limits.js'
import {
  effectiveUid,
  openPrivateDir,
  ownDirSync,
  type OwnedDir,
  privateDirProblem,
  removeTreeAt,
} from '../../shared/private-dir.js'
import {xdgHome} from '../../shared/xdg.js'

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

/**
 * Creates `<root>/<run-id>/` (private) through a held descriptor of the root (checked as an
 * OwnedDir, created when missing) and returns the run directory, held too. Throws the problem with the fix.
 */
function createRunDir(root: string): {name: string; dir: OwnedDir} {
  let owned: OwnedDir
  try {
    owned = ownDirSync(root, {create: true})
  } catch (error) {
    throw artifactsRootError(root, (error as Error).message)
  }
  try {
    const stamp = new Date().toISOString().replaceAll(/[:.]/g, '-')
    const name = `${stamp}-${randomUUID().slice(0, 8)}`
    mkdirSync(owned.at(name), {mode: 0o700})
    return {name: join(root, name), dir: ownDirSync(owned.at(name))}
  } finally {
    owned.close()
  }
}

/**
 * The artifacts of one run: output over the cap, kept ./out/ files, shown images (`run`). Written
 * only through the run directory's descriptor (`dir()` is `/proc/self/fd/N` on Linux), so another
 * user who can rename in the parent of the artifacts root and swaps it (renameat2 exchange) while
 * files are written lands nothing elsewhere (SPEC §15); `shownPath` turns such a path back into
 * the one shown to the user.
 */
export class RunArtifacts {
  private made: {name: string; dir: OwnedDir | undefined} | undefined

  constructor(private readonly root: string) {}

  /** The run's directory, made (private) the first time it is needed, as a path to write through. */
  dir(): string {
    this.made ??= createRunDir(this.root)
    // Closed (the child is gone) and needed again: opened and checked anew.
    this.made.dir ??= ownDirSync(this.made.name)
    const at = this.made.dir.at()
    heldRunDirs.set(at, this.made.name)
    return at
  }

  /** The run's directory (as shown) if anything was kept, else undefined. */
  get path(): string | undefined {
    return this.made?.name
  }

  /** Lets go of the run directory's descriptor (the files stay). */
  close(): void {
    const dir = this.made?.dir
    if (dir === undefined) return
    heldRunDirs.delete(dir.at())
    dir.close()
    this.made!.dir = undefined
  }
}

/** The run directories held, by the path written through, to the path shown. */
const heldRunDirs = new Map<string, string>()

/** `path` (under a RunArtifacts' `dir()`) as the user should see it: under the artifacts root. */
export function shownPath(path: string): string {
  const slash = path.indexOf('/', '/proc/self/fd/'.length)
  const held = heldRunDirs.get(slash === -1 ? path : path.slice(0, slash))
  if (held === undefined) return path
  return slash === -1 ? held : `${held}${path.slice(slash)}`
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

export {MAX_KEPT_BYTES as ARTIFACT_MAX_RUN_BYTES} from '../../shared/limits.js'
