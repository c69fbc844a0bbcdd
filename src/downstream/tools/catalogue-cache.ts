/* eslint-disable no-bitwise -- open flags are bit patterns */
import type {FileHandle} from 'node:fs/promises'

import {createHash} from 'node:crypto'
import {constants} from 'node:fs'
import {lstat, open, readdir, rename, unlink} from 'node:fs/promises'
import {join} from 'node:path'

import type {ServerConfig} from '../../config/schema.js'
import type {CatalogueEntry} from './catalogue.js'

import {isRecord} from '../../shared/guards.js'
import {makeDirs} from '../../shared/make-dirs.js'
import {effectiveUid, openPrivateDir} from '../../shared/private-dir.js'
import {xdgHome} from '../../shared/xdg.js'
import {MAX_ABOUT_CHARS} from './catalogue.js'
import {serverIdentity} from './shape-store.js'

/**
 * The last session's catalogue (SPEC §5): serve answers `initialize` before any server has
 * connected, so its instructions name each server with what it had last time. One small file per
 * server in `$XDG_CACHE_HOME/ptc-mcp/catalogue/` (default `~/.cache/ptc-mcp/catalogue/`), named by
 * a hash of the server's identity (its command and arguments, or its URL: another config's server
 * of the same name is another server), under the shapes' rules (SPEC §15): a private directory of
 * this user, files opened without following links, regular files of this user only, bounded
 * before they are read. A file that cannot be used is a lost hint, never an error.
 */

/** A file holds one entry of at most MAX_ABOUT_CHARS words and a name: far below this. */
const MAX_FILE_BYTES = 4096
/** Files kept; past it the oldest go. */
const MAX_FILES = 256
const FILE_NAME = /^[\da-f]{32}\.json$/
/** Writes by this process: each has a temporary file of its own. */
let writes = 0

/** `$XDG_CACHE_HOME/ptc-mcp/catalogue`, else `~/.cache/ptc-mcp/catalogue`. */
export function defaultCatalogueDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgHome('cache', env), 'ptc-mcp', 'catalogue')
}

/** What the last session knew of each of `servers`, by config name (those it never saw are left out). */
export async function readCatalogue(
  dir: string,
  servers: readonly ServerConfig[],
): Promise<Map<string, CatalogueEntry>> {
  const found = new Map<string, CatalogueEntry>()
  const handle = await openPrivateDir(dir).catch(() => {})
  if (!handle) return found
  try {
    await Promise.all(
      servers.map(async (server) => {
        const entry = parseEntry(await readBounded(handle, dir, fileName(server)), server)
        if (entry) found.set(server.name, entry)
      }),
    )
  } finally {
    await handle.close()
  }
  return found
}

/** Keeps `entry` as what `server` had this session; false when it could not be written. */
export async function writeCatalogueEntry(
  dir: string,
  server: ServerConfig,
  entry: CatalogueEntry,
): Promise<boolean> {
  const json = JSON.stringify({server: serverKey(server), ...entry, name: server.name})
  if (Buffer.byteLength(json) > MAX_FILE_BYTES) return false
  try {
    makeDirs(dir)
  } catch {
    return false
  }
  const handle = await openPrivateDir(dir).catch(() => {})
  if (!handle) return false
  const name = fileName(server)
  const temporary = `.${name}.${process.pid}.${++writes}.tmp`
  try {
    const file = await open(
      inside(handle, dir, temporary),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    )
    try {
      await file.writeFile(json)
    } finally {
      await file.close()
    }
    await rename(inside(handle, dir, temporary), inside(handle, dir, name))
    await prune(handle, dir)
    return true
  } catch {
    await unlink(inside(handle, dir, temporary)).catch(() => {})
    return false
  } finally {
    await handle.close()
  }
}

function parseEntry(text: string | undefined, server: ServerConfig): CatalogueEntry | undefined {
  if (text === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(value) || value.server !== serverKey(server)) return undefined
  const {tools, about, toolsKey} = value
  if (typeof tools !== 'number' || !Number.isSafeInteger(tools) || tools < 0) return undefined
  return {
    name: server.name,
    tools,
    ...(typeof about === 'string' && about.length <= MAX_ABOUT_CHARS ? {about} : {}),
    ...(typeof toolsKey === 'string' && /^[\da-f]{16}$/.test(toolsKey) ? {toolsKey} : {}),
  }
}

/** A regular file of this user, at most MAX_FILE_BYTES, never through a link; else undefined. */
async function readBounded(dirHandle: FileHandle, dir: string, name: string): Promise<string | undefined> {
  let file: FileHandle
  try {
    file = await open(
      inside(dirHandle, dir, name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    )
  } catch {
    return undefined
  }
  try {
    const stats = await file.stat()
    if (!stats.isFile() || stats.uid !== effectiveUid() || stats.size > MAX_FILE_BYTES) return undefined
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1)
    const {bytesRead} = await file.read(buffer, 0, buffer.length, 0)
    return bytesRead > MAX_FILE_BYTES ? undefined : buffer.toString('utf8', 0, bytesRead)
  } catch {
    return undefined
  } finally {
    await file.close()
  }
}

/** Keeps the newest MAX_FILES files (names this module gives; leftovers of a crash go too). */
async function prune(dirHandle: FileHandle, dir: string): Promise<void> {
  const names = await readdir(inside(dirHandle, dir, ''))
  if (names.length <= MAX_FILES) return
  const dated = await Promise.all(
    names.map(async (name) => {
      const stats = await lstat(inside(dirHandle, dir, name)).catch(() => {})
      return {name, mtimeMs: FILE_NAME.test(name) ? (stats?.mtimeMs ?? 0) : 0}
    }),
  )
  dated.sort((a, b) => b.mtimeMs - a.mtimeMs)
  for (const {name} of dated.slice(MAX_FILES)) await unlink(inside(dirHandle, dir, name)).catch(() => {})
}

/** `name` in the directory open as `handle`: through its descriptor on Linux, else by path. */
function inside(handle: FileHandle, dir: string, name: string): string {
  return process.platform === 'linux' ? `/proc/self/fd/${handle.fd}/${name}` : join(dir, name)
}

/** The identity may hold a secret (an argument expanded from ${VAR}): only its hash is kept. */
function serverKey(server: ServerConfig): string {
  return createHash('sha256').update(serverIdentity(server)).digest('hex').slice(0, 32)
}

function fileName(server: ServerConfig): string {
  return `${createHash('sha256')
    .update(`catalogue\0${serverIdentity(server)}`)
    .digest('hex')
    .slice(0, 32)}.json`
}
