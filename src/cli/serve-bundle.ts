/* eslint-disable no-bitwise -- file modes and open flags are bit patterns */
import {createHash} from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import Module, {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Script, constants as vmConstants} from 'node:vm'

import {MAX_SERVE_CACHE_BYTES} from '../shared/limits.js'
import {effectiveUid, ownDirSync, type OwnedDir} from '../shared/private-dir.js'
/**
 * Loads `serve`'s bundle (dist/serve/main.cjs, from scripts/bundle-serve.js) with a V8 code cache:
 * an MCP client waits only briefly for serve's first answer (SPEC §5), and compiling the bundle is
 * most of what Node does before it. Node 20 has no compile cache for modules, so the bundle is
 * CommonJS, run through `vm.Script`, whose `cachedData` V8 takes once it matches the source.
 *
 * The cache is code: it is kept in a private directory of this user
 * (`$XDG_CACHE_HOME/ptc-mcp/code-cache`, 0700, owned by this user, not a link, held by its
 * descriptor: an OwnedDir), under a name
 * holding the bundle's content hash and the Node version, so another build never meets it. Any
 * problem with it means only a slower start: the bundle is then compiled as usual.
 */
import {xdgHome} from '../shared/xdg.js'

/** What the bundle exports (src/cli/serve-fast-path.ts). */
export interface ServeBundle {
  serveFastPath(args: readonly string[]): Promise<boolean>
}

/** How the cache served this load: for the tests and `--log-level debug`. */
export type CacheUse = 'used' | 'written' | 'rejected-and-rewritten' | 'unavailable'

export const SERVE_BUNDLE = fileURLToPath(new URL('../serve/main.cjs', import.meta.url))
/** Caches of other builds and Node versions kept beside the current one. */
const KEEP_OTHERS = 3
const PREFIX = 'serve-'

/** `$XDG_CACHE_HOME/ptc-mcp/code-cache`, else `~/.cache/ptc-mcp/code-cache`. */
export function defaultCodeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgHome('cache', env), 'ptc-mcp', 'code-cache')
}

/**
 * Runs the CommonJS bundle at `file` with the code cache in `cacheDir` (undefined: none), and
 * returns its exports and how the cache served.
 */
export function loadBundle<T>(file: string, cacheDir: string | undefined): {exports: T; cache: CacheUse} {
  const source = readFileSync(file, 'utf8')
  const dir = cacheDir === undefined ? undefined : privateDir(cacheDir)
  try {
    return runBundle<T>(file, source, dir)
  } finally {
    dir?.close()
  }
}

function runBundle<T>(
  file: string,
  source: string,
  dir: OwnedDir | undefined,
): {exports: T; cache: CacheUse} {
  const name = `${PREFIX}${createHash('sha256').update(source).digest('hex').slice(0, 32)}-${process.version}-${process.arch}.bin`
  const cachedData = dir === undefined ? undefined : readCache(dir.at(name))
  const script = new Script(Module.wrap(source), {
    filename: file,
    cachedData,
    // The bundle's own import() calls (an external package, a Node module) resolve as in a module.
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  const module = {exports: {} as T}
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file))
  if (dir === undefined) return {exports: module.exports, cache: 'unavailable'}
  if (cachedData && !script.cachedDataRejected) return {exports: module.exports, cache: 'used'}
  // Written after the bundle ran: the functions its start compiled are in the cache too.
  const written = writeCache(dir, name, script.createCachedData())
  if (!written) return {exports: module.exports, cache: 'unavailable'}
  return {exports: module.exports, cache: cachedData ? 'rejected-and-rewritten' : 'written'}
}

/** serve's bundle, with the cache in its default place. */
export function loadServeBundle(): ServeBundle {
  return loadBundle<ServeBundle>(SERVE_BUNDLE, defaultCodeCacheDir()).exports
}

/**
 * `path`, created when missing, held when it is a directory of this user no one else can write to
 * (an OwnedDir: what is read, written and removed there goes through its descriptor); else undefined.
 */
function privateDir(path: string): OwnedDir | undefined {
  try {
    return ownDirSync(path, {create: true})
  } catch {
    return undefined
  }
}

/** The cache file's bytes: a regular file of this user, not a link, bounded; else undefined. */
function readCache(path: string): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || stats.uid !== effectiveUid() || stats.size > MAX_SERVE_CACHE_BYTES)
      return undefined
    const buffer = Buffer.alloc(stats.size)
    let length = 0
    for (let read = 1; read > 0 && length < buffer.length; length += read)
      read = readSync(fd, buffer, length, buffer.length - length, null)
    return length === buffer.length ? buffer : undefined
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Writes the cache atomically (a new file, renamed over), keeping a few others at most. */
function writeCache(dir: OwnedDir, name: string, data: Buffer): boolean {
  if (data.length === 0 || data.length > MAX_SERVE_CACHE_BYTES) return false
  const temporary = dir.at(`.${name}.${process.pid}.tmp`)
  try {
    const fd = openSync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    )
    try {
      writeFileSync(fd, data)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, dir.at(name))
  } catch {
    try {
      unlinkSync(temporary)
    } catch {}
    return false
  }
  pruneOthers(dir, name)
  return true
}

/** Removes the oldest caches of other builds beyond KEEP_OTHERS (unlink never follows a link). */
function pruneOthers(dir: OwnedDir, keep: string): void {
  try {
    const others = readdirSync(dir.at())
      .filter((entry) => entry.startsWith(PREFIX) && entry !== keep)
      .map((entry) => ({entry, mtime: lstatSync(dir.at(entry)).mtimeMs}))
      .sort((a, b) => b.mtime - a.mtime)
    for (const {entry} of others.slice(KEEP_OTHERS)) unlinkSync(dir.at(entry))
  } catch {}
}
