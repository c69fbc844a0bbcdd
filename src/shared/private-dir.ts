/* eslint-disable no-bitwise -- file modes and open flags are bit patterns */
import type {Stats} from 'node:fs'

import {chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync} from 'node:fs'
import {chmod, type FileHandle, open, opendir, rm, rmdir, unlink} from 'node:fs/promises'
import {dirname, join} from 'node:path'

import {makeDirs} from './make-dirs.js'

/**
 * A private directory of this user (SPEC §15): the scratch root and the artifacts root are held to
 * one rule (a directory, not a link, owned by this user, no access for group or others), so that
 * no other user can plant, swap or read anything in them; and what is removed from them is
 * removed fd-relative, never following a link.
 */

/** What makes `stats` (from lstat or fstat) no private directory of `uid`, or undefined. */
export function privateDirProblem(
  stats: Pick<Stats, 'isDirectory' | 'uid' | 'mode'>,
  uid: number,
): string | undefined {
  if (!stats.isDirectory()) return 'is not a directory'
  if (stats.uid !== uid) return `belongs to uid ${stats.uid}, not ${uid}`
  if ((stats.mode & 0o077) !== 0) return `is open to other users (mode ${(stats.mode & 0o777).toString(8)})`
  return undefined
}

export function effectiveUid(): number {
  return process.geteuid?.() ?? 0
}

/**
 * Opens `path` as a directory without following a link in its last component and checks the
 * directory it names, through that descriptor (so what is checked is what is then used). Resolves
 * with the handle (O_PATH on Linux: `/proc/self/fd/N/...` reaches inside), or rejects with the
 * problem (ENOENT as it is).
 */
export async function openPrivateDir(path: string): Promise<FileHandle> {
  const flags =
    (process.platform === 'linux' ? O_PATH : constants.O_RDONLY) |
    constants.O_DIRECTORY |
    constants.O_NOFOLLOW
  let handle: FileHandle
  try {
    handle = await open(path, flags)
  } catch (error) {
    const {code} = error as NodeJS.ErrnoException
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new Error(`${path} is a link or not a directory`)
    throw error
  }
  const problem = privateDirProblem(await handle.stat(), effectiveUid())
  if (problem) {
    await handle.close()
    throw new Error(`${path} ${problem}`)
  }
  return handle
}

/** O_PATH (Linux, the same value on x86_64 and aarch64): an fd naming a file without opening it. */
const O_PATH = 0o1000_0000
/** Names removed per pass over a directory, so a huge one is never listed into memory at once. */
const BATCH = 1000
/** Directories deeper than this are left in place (each level holds a descriptor). */
const MAX_DEPTH = 256

/**
 * Removes `path` and everything under it. On Linux each step is relative to a descriptor of the
 * directory it is in (`/proc/self/fd/N/name`): a directory swapped for a symlink halfway is seen
 * as the link and unlinked, never followed, so nothing outside the tree can be reached. A
 * directory of this user without rwx for its owner (a program's `mkdir(d, 0o300)`) is given
 * 0700 first, through its own descriptor. Elsewhere (macOS) a path-based removal, which the
 * private root keeps out of other users' reach.
 */
export async function removeTree(path: string): Promise<void> {
  if (process.platform !== 'linux') {
    await rm(path, {recursive: true, force: true, maxRetries: 2})
    return
  }
  const slash = path.lastIndexOf('/')
  const parent = await open(slash <= 0 ? '/' : path.slice(0, slash), O_PATH | constants.O_DIRECTORY)
  try {
    await removeEntry(parent.fd, path.slice(slash + 1), 0)
  } finally {
    await parent.close()
  }
}

/**
 * Removes the entry `name` of the directory open as `dirFd` (a descriptor this process holds) and
 * everything under it, the same way: fd-relative, never following a link. Linux only.
 */
export async function removeTreeAt(dirFd: number, name: string): Promise<void> {
  await removeEntry(dirFd, name, 0)
}

async function removeEntry(dirFd: number, name: string, depth: number): Promise<void> {
  const path = `/proc/self/fd/${dirFd}/${name}`
  let handle
  try {
    handle = await open(path, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  } catch (error) {
    const {code} = error as NodeJS.ErrnoException
    if (code === 'ENOENT') return
    // A file, a link (to a directory or not), a socket...: the name itself goes.
    if (code === 'ENOTDIR' || code === 'ELOOP') return ignoreMissing(unlink(path))
    throw error
  }
  try {
    if (depth >= MAX_DEPTH) throw new Error(`more than ${MAX_DEPTH} directories deep`)
    const self = `/proc/self/fd/${handle.fd}`
    const stats: Stats = await handle.stat()
    if ((stats.mode & 0o700) !== 0o700 && stats.uid === effectiveUid() && effectiveUid() !== 0) {
      await chmod(self, 0o700)
    }
    const dirFd = handle.fd
    for (let batch = await firstEntries(self); batch.length > 0; batch = await firstEntries(self)) {
      // What was no directory when listed is unlinked at once (unlink never follows a link, and
      // fails on a directory swapped in since: that one is then walked like the others).
      const files = batch.filter((entry) => !entry.directory).map((entry) => entry.name)
      const failed = await Promise.all(files.map((name) => unlinkOrKeep(`/proc/self/fd/${dirFd}/${name}`)))
      const walk = [
        ...batch.filter((entry) => entry.directory).map((entry) => entry.name),
        ...files.filter((_, n) => failed[n]),
      ]
      for (const name of walk) await removeEntry(dirFd, name, depth + 1)
    }
  } finally {
    await handle.close()
  }
  await ignoreMissing(rmdir(path))
}

/** Unlinks `path`; true when it is still there to be walked (a directory). */
async function unlinkOrKeep(path: string): Promise<boolean> {
  try {
    await unlink(path)
    return false
  } catch (error) {
    const {code} = error as NodeJS.ErrnoException
    if (code === 'ENOENT') return false
    if (code === 'EISDIR' || code === 'EPERM') return true
    throw error
  }
}

/** Up to BATCH entries of the directory (read without listing all of it). */
async function firstEntries(path: string): Promise<{name: string; directory: boolean}[]> {
  const names: {name: string; directory: boolean}[] = []
  const listing = await opendir(path, {bufferSize: 128})
  try {
    for await (const entry of listing) {
      names.push({name: entry.name, directory: entry.isDirectory()})
      if (names.length >= BATCH) break
    }
  } finally {
    // Closed already when the loop ran to its end.
    await listing.close().catch(() => {})
  }
  return names
}

async function ignoreMissing(operation: Promise<void>): Promise<void> {
  try {
    await operation
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/**
 * A directory this process owns and holds (SPEC §15, "nothing on disk is trusted as found"):
 * opened by descriptor without following a link, checked through that descriptor (a directory of
 * this user that no one else can write to; one that is ours but readable by others is closed to
 * them), and then reached only through the descriptor: on Linux `at(name)` is
 * `/proc/self/fd/N/name`, which the kernel resolves from the directory held, so renaming or
 * swapping the path (another user who can write to a parent) changes nothing of what is read,
 * written or removed. Elsewhere (macOS, no `/proc`) `at` checks that the path still names the
 * directory held before handing it out. No other user can create entries in a directory that
 * passes, so what is inside is what this user put there.
 */
export interface OwnedDir {
  /** The path it was opened by, for messages. */
  readonly path: string
  readonly fd: number
  /** The path of `name` inside it (of the directory itself without one), as above. */
  at(name?: string): string
  close(): void
}

/** What makes `stats` no directory this user may own and use, or undefined. */
export function ownedDirProblem(
  stats: Pick<Stats, 'isDirectory' | 'uid' | 'mode'>,
  uid: number,
): string | undefined {
  if (!stats.isDirectory()) return 'is not a directory'
  if (stats.uid !== uid) return `belongs to uid ${stats.uid}, not ${uid}`
  if ((stats.mode & 0o022) !== 0)
    return `can be written by other users (mode ${(stats.mode & 0o777).toString(8)})`
  return undefined
}

/**
 * Opens `path` as an OwnedDir, creating it 0700 (its missing parents too) when `create` and it is
 * missing. Throws an Error saying what is wrong with it (ENOENT as it is, without `create`).
 */
export function ownDirSync(path: string, options: {create?: boolean} = {}): OwnedDir {
  if (options.create) {
    makeDirs(dirname(path))
    try {
      mkdirSync(path, {mode: 0o700})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  let fd: number
  try {
    fd = openSync(path, DIR_FLAGS)
  } catch (error) {
    const {code} = error as NodeJS.ErrnoException
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new Error(`${path} is a link or not a directory`)
    throw error
  }
  try {
    const stats = fstatSync(fd)
    const problem = ownedDirProblem(stats, effectiveUid())
    if (problem) throw new Error(`${path} ${problem}`)
    // Ours, written by no one else: closed to readers too (an older version made it 0755).
    if ((stats.mode & 0o077) !== 0) chmodSync(LINUX ? `/proc/self/fd/${fd}` : path, 0o700)
    return held(path, fd, stats)
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

const LINUX = process.platform === 'linux'
const DIR_FLAGS = (LINUX ? O_PATH : constants.O_RDONLY) | constants.O_DIRECTORY | constants.O_NOFOLLOW

function held(path: string, fd: number, stats: Stats): OwnedDir {
  let open = true
  return {
    path,
    fd,
    at(name?: string): string {
      if (!open) throw new Error(`${path} was closed`)
      if (LINUX) return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`
      const now = lstatSync(path, {throwIfNoEntry: false})
      if (now?.ino !== stats.ino || now.dev !== stats.dev) throw new Error(`${path} was moved or replaced`)
      return name === undefined ? path : join(path, name)
    },
    close(): void {
      if (!open) return
      open = false
      closeSync(fd)
    },
  }
}
