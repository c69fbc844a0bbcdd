import type {Stats} from 'node:fs'

import {randomBytes} from 'node:crypto'
import {lstat, mkdir, mkdtemp, readdir, rmdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'

import type {Logger} from '../shared/log.js'

import {SandboxError} from '../shared/errors.js'
import {effectiveUid, privateDirProblem, removeTree} from '../shared/private-dir.js'

/**
 * Per-run scratch directories (SPEC §7, §15). They live under a private root of this user,
 * `<tmpdir>/ptc-mcp-<uid>` (TMPDIR honoured), created 0700 and used only when it is a real
 * directory of this user that no one else can enter (else a fresh private root beside it, see
 * ensureScratchRoot): no other user can then plant, swap or read
 * anything there, so cleanup and the sweep of leftovers only ever meet what this server and its
 * own children made. Removal is fd-relative all the same (a program's scratch may hold links
 * and directories it made unreadable), and never follows a link.
 */
export const SCRATCH_PREFIX = 'ptc-run-'

/** The private root of this user's scratch directories under `base`. */
export function scratchRoot(base = tmpdir(), uid = effectiveUid()): string {
  return join(base, `ptc-mcp-${uid}`)
}

/**
 * The root this process's scratch directories go in: `<base>/ptc-mcp-<uid>`, created 0700 when
 * missing and verified (a directory, not a link, of this user, no access for group or others).
 * When that path fails the check (another user made it first, it is a link, it is open to others),
 * it is left alone and a fresh private root of this process is made beside it instead,
 * `<base>/ptc-mcp-<uid>-<pid>-XXXXXX` (mkdtemp: a new name, 0700), so a predictable path someone
 * else created never stops programs (SPEC §15); the sweep removes it once this process is gone.
 */
export async function ensureScratchRoot(base = tmpdir()): Promise<string> {
  const uid = effectiveUid()
  const root = scratchRoot(base, uid)
  const problem = await sharedRootProblem(root, uid)
  if (problem === undefined) return root
  let fresh = freshRoots.get(base)
  if (fresh === undefined) {
    fresh = mkdtemp(join(base, `${freshRootPrefix(uid)}${process.pid}-`)).catch((error: unknown) => {
      freshRoots.delete(base)
      throw new SandboxError(
        `the scratch root ${root} ${problem}, and no private one could be made: ${(error as Error).message}`,
        {
          suggestion: 'set TMPDIR to a writable directory of this user',
          cause: error,
        },
      )
    })
    freshRoots.set(base, fresh)
  }
  return fresh
}

/** The private roots made because `<base>/ptc-mcp-<uid>` could not be used, per base. */
const freshRoots = new Map<string, Promise<string>>()

/** Names of fresh private roots: `ptc-mcp-<uid>-<pid>-XXXXXX`. */
const freshRootPrefix = (uid: number) => `ptc-mcp-${uid}-`

/** Makes `root` when missing; what stops it from being this user's private root, or undefined. */
async function sharedRootProblem(root: string, uid: number): Promise<string | undefined> {
  // Looked at first: it is there for every child but the first, and a failed mkdir costs an error.
  let stats: Stats | null = await lstat(root).catch(() => null)
  if (!stats) {
    try {
      await mkdir(root, {mode: 0o700})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        return `cannot be created (${(error as Error).message})`
    }
    stats = await lstat(root).catch(() => null)
    if (!stats) return 'vanished after it was made'
  }
  return privateDirProblem(stats, uid)
}

/** A new, empty scratch directory for one child of this server: `ptc-run-<pid>-XXXXXX`. */
export async function createScratchDir(base = tmpdir()): Promise<string> {
  const root = await ensureScratchRoot(base)
  return mkdtemp(join(root, `${SCRATCH_PREFIX}${process.pid}-`))
}

/**
 * A name for one child's scratch directory under this server's root, `ptc-run-<pid>-<random>`,
 * made nowhere: for a child that covers the root with a tmpfs of its own (the fork server's), where
 * the directory is made inside that tmpfs (SPEC §11: nothing on the host per program).
 */
export async function nameScratchDir(base = tmpdir()): Promise<string> {
  const root = await recentRoot(base)
  namesMade += 1
  return join(root, `${SCRATCH_PREFIX}${process.pid}-${nameStem}${namesMade.toString(36)}`)
}

/** Unique per process: a random stem, once, and a count (a name made nowhere needs no fresh randomness). */
const nameStem = randomBytes(4).toString('hex')
let namesMade = 0

/**
 * The root as ensureScratchRoot found it at most ROOT_RECHECK_MS ago, per base: programs in quick
 * succession share one check (SPEC §11: little per program), and a root removed meanwhile (a /tmp
 * cleaner, say) is made again within a second.
 */
async function recentRoot(base: string): Promise<string> {
  const now = performance.now()
  const known = recentRoots.get(base)
  if (known && now - known.at < ROOT_RECHECK_MS) return known.root
  const root = ensureScratchRoot(base)
  recentRoots.set(base, {root, at: now})
  root.catch(() => recentRoots.delete(base))
  return root
}

const ROOT_RECHECK_MS = 1000
const recentRoots = new Map<string, {root: Promise<string>; at: number}>()

/**
 * Removes one scratch directory and everything in it, restoring permissions a program removed and
 * never following a link. Usually empty (the program's files live in a private tmpfs): one rmdir.
 */
export async function removeScratchDir(dir: string): Promise<void> {
  try {
    await rmdir(dir)
    return
  } catch (error) {
    const {code} = error as NodeJS.ErrnoException
    if (code === 'ENOENT') return
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EACCES' && code !== 'EPERM') throw error
  }
  await removeTree(dir)
}

/**
 * Removes what a server that is gone (killed with SIGKILL, say, which leaves no chance to clean
 * up) left behind: the scratch directories under this user's private root, and this user's
 * sandbox probe and fork server directories beside it (see `createProbeDir`). Nothing else is looked at.
 */
export async function sweepOrphanedScratchDirs(logger: Logger, base = tmpdir()): Promise<void> {
  const uid = effectiveUid()
  const root = scratchRoot(base, uid)
  const rootStats = await lstat(root).catch(() => null)
  if (rootStats && !privateDirProblem(rootStats, uid))
    await sweepDeadServers(root, SCRATCH_PREFIX, uid, logger)
  await sweepDeadServers(base, freshRootPrefix(uid), uid, logger)
  await sweepDeadServers(base, PROBE_PREFIX, uid, logger)
  await sweepDeadServers(base, FORK_PREFIX, uid, logger)
}

/** Removes the directories of this user in `parent` named `<prefix><pid>-...` whose pid is gone. */
async function sweepDeadServers(parent: string, prefix: string, uid: number, logger: Logger): Promise<void> {
  const names = await readdir(parent).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1])
    if (!pid || isAlive(pid)) continue
    const dir = join(parent, name)
    // Only this user's own directories, never a link: another user may plant names in /tmp.
    const stats = await lstat(dir).catch(() => null)
    if (!stats?.isDirectory() || stats.uid !== uid) continue
    await removeScratchDir(dir).then(
      () => logger.debug(`removed ${dir}, left by a server that is gone`),
      (error: Error) => logger.warn(`could not remove ${dir}: ${error.message}`),
    )
  }
}

/**
 * Sandbox probe directories: `<tmpdir>/ptc-mcp-probe-<pid>-XXXXXX`, beside the private root
 * rather than in it, because the probe's sentinel must be readable by any uid (only the sandbox
 * may stop the probe from reading it). The pid lets the sweep remove those of a killed server
 * (Claude Code stops a server with SIGINT, SIGTERM and SIGKILL within half a second).
 */
export const PROBE_PREFIX = 'ptc-mcp-probe-'

export async function createProbeDir(base = tmpdir()): Promise<string> {
  return mkdtemp(join(base, `${PROBE_PREFIX}${process.pid}-`))
}

/**
 * The fork server's socket directory: `<tmpdir>/ptc-mcp-fork-<pid>-XXXXXX`, made 0700 by mkdtemp,
 * beside the scratch root (which holds programs' scratch only), swept like probe directories.
 */
export const FORK_PREFIX = 'ptc-mcp-fork-'

export async function createForkServerDir(base = tmpdir()): Promise<string> {
  return mkdtemp(join(base, `${FORK_PREFIX}${process.pid}-`))
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}
