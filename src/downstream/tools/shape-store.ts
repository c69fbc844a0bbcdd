import {createHash, randomBytes} from 'node:crypto'
import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import {join} from 'node:path'

import type {ServerConfig} from '../../config/schema.js'
import type {Logger} from '../../shared/log.js'
import type {ToolInfo} from '../types.js'

import {isRecord} from '../../shared/guards.js'
import {MAX_SHAPE_FILES, MAX_SHAPE_FILES_PER_TOOL, MAX_SHAPES_IN_MEMORY} from '../../shared/limits.js'
import {ownDirSync, type OwnedDir} from '../../shared/private-dir.js'
import {readRegularFileSync} from '../../shared/regular-file.js'
import {xdgHome} from '../../shared/xdg.js'
import {MAX_SHAPE_CHARS} from './shapes.js'

/**
 * The result shapes seen per tool (SPEC §5 `observed_result`), kept across restarts in
 * `$XDG_CACHE_HOME/ptc-mcp/shapes/` (default `~/.cache/ptc-mcp/shapes/`): one small JSON file per
 * server, tool and hash of its schemas, so a tool whose schemas change starts afresh. The server
 * is known by its identity (its config entry's command and arguments, or its URL), not its name:
 * another config's server of the same name is another server. Bounded: a shape of at most
 * MAX_SHAPE_CHARS, MAX_SHAPE_FILES_PER_TOOL schema versions per tool and MAX_SHAPE_FILES in all (the oldest
 * removed), MAX_SHAPES_IN_MEMORY shapes held. A file that cannot be read or written is only a lost hint:
 * it is logged at debug level and ignored.
 *
 * Nothing in it is trusted as found (SPEC §15): the directory is held as an OwnedDir (a directory
 * of this user that no other user can write to, reached through its descriptor), so no one else
 * can plant a link, a FIFO or a shape there, or swap the directory for another under the clean-up.
 * A directory that fails the check is not used: a warning, and shapes are kept in memory only.
 * Files are read without following a link, only when regular and small.
 */

/** Created without following a link, never over an existing name. */
// eslint-disable-next-line no-bitwise -- open flags are bit patterns
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/** Largest file read back (a shape within MAX_SHAPE_CHARS and its names fit easily). */
const MAX_FILE_BYTES = 4 * MAX_SHAPE_CHARS
/** The name of a cache file: the tool's key and its schemas' key. */
const FILE_NAME = /^[\da-f]{24}-[\da-f]{16}\.json$/
/** The whole directory is pruned once per this many files written (and at the first). */
const PRUNE_EVERY = 64

/** How a server is known in the cache: its command and arguments, or its URL. */
export function serverIdentity(server: ServerConfig): string {
  return server.transport === 'stdio'
    ? JSON.stringify(['stdio', server.command, server.args ?? []])
    : `${server.transport} ${server.url}`
}

export class ShapeStore {
  private readonly shapes = new Map<string, {shape: unknown} | null>()
  private readonly recorded = new Set<string>()
  /** Files this store wrote, per tool (its file-name prefix), oldest first. */
  private readonly written = new Map<string, string[]>()
  private writesSincePrune = PRUNE_EVERY
  /** The directory once held; null once it failed the check (memory only from then on). */
  private owned: OwnedDir | null | undefined

  /**
   * `dir` null keeps shapes in memory only. `identities`: each server's identity by config name
   * (serverIdentity); a server not in it is known by its name.
   */
  constructor(
    private readonly dir: string | null,
    private readonly logger?: Logger,
    private readonly identities: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** The shape last recorded for this tool (this run or an earlier one), or undefined. */
  get(tool: ToolInfo): unknown {
    const key = this.key(tool)
    if (!this.shapes.has(key.file)) this.remember(key.file, this.load(key.file, tool))
    return this.shapes.get(key.file)?.shape
  }

  /** Whether a shape was recorded for this tool in this run (later results are not described again). */
  recordedThisRun(tool: ToolInfo): boolean {
    return this.recorded.has(this.key(tool).file)
  }

  record(tool: ToolInfo, shape: unknown): void {
    const key = this.key(tool)
    const json = JSON.stringify({server: key.server, tool: tool.tool, shape})
    this.recorded.add(key.file)
    if (this.recorded.size > MAX_SHAPES_IN_MEMORY) this.recorded.delete(this.recorded.values().next().value!)
    // shapeOf keeps shapes within MAX_SHAPE_CHARS: anything bigger is not this module's to keep.
    if (JSON.stringify(shape).length > MAX_SHAPE_CHARS) return
    this.remember(key.file, {shape})
    const dir = this.held()
    if (!dir) return
    try {
      const temporary = dir.at(`${key.file}.json.${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
      const fd = openSync(temporary, CREATE_FLAGS, 0o600)
      try {
        const bytes = Buffer.from(json)
        for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset)
      } finally {
        closeSync(fd)
      }
      renameSync(temporary, dir.at(`${key.file}.json`))
      this.wrote(key)
    } catch (error) {
      this.logger?.debug(`could not keep the result shape of ${tool.name}: ${(error as Error).message}`)
    }
  }

  /** Lets go of the directory (a store is used again after: it is opened and checked anew). */
  close(): void {
    this.owned?.close()
    this.owned = undefined
  }

  /** The cache directory, opened (created when missing) and checked the first time; null: memory only. */
  private held(): OwnedDir | null {
    if (this.owned !== undefined || !this.dir) return this.owned ?? null
    try {
      this.owned = ownDirSync(this.dir, {create: true})
    } catch (error) {
      this.owned = null
      this.logger?.warn(
        `the result shapes cache is not used (shapes are kept in memory only): ${(error as Error).message}. Fix: remove ${this.dir}, or point XDG_CACHE_HOME at a directory only this user can write to`,
      )
    }
    return this.owned
  }

  private identity(tool: ToolInfo): string {
    return this.identities.get(tool.server) ?? `name ${tool.server}`
  }

  private key(tool: ToolInfo): ShapeKey {
    let key = keys.get(tool)
    if (key?.identity !== this.identity(tool)) {
      const identity = this.identity(tool)
      const toolKey = hash(`${identity}\0${tool.tool}`, 24)
      const schemas = hash(JSON.stringify([tool.inputSchema, tool.outputSchema ?? null]), 16)
      // The identity may hold a secret (an argument expanded from ${VAR}): only its hash is kept.
      key = {identity, server: hash(identity, 32), tool: toolKey, file: `${toolKey}-${schemas}`}
      keys.set(tool, key)
    }
    return key
  }

  private remember(file: string, entry: {shape: unknown} | null): void {
    this.shapes.delete(file)
    this.shapes.set(file, entry)
    if (this.shapes.size > MAX_SHAPES_IN_MEMORY) this.shapes.delete(this.shapes.keys().next().value!)
  }

  /** Bookkeeping after a file was written: this tool's oldest versions go, and now and then the oldest files. */
  private wrote(key: ShapeKey): void {
    const files = (this.written.get(key.tool) ?? []).filter((file) => file !== key.file)
    files.push(key.file)
    while (files.length > MAX_SHAPE_FILES_PER_TOOL) this.unlink(`${files.shift()!}.json`)
    this.written.set(key.tool, files)
    if (this.written.size > MAX_SHAPES_IN_MEMORY) this.written.delete(this.written.keys().next().value!)
    if (++this.writesSincePrune >= PRUNE_EVERY) {
      this.writesSincePrune = 0
      this.prune()
    }
  }

  /** Keeps the newest MAX_SHAPE_FILES_PER_TOOL files of each tool and the newest MAX_SHAPE_FILES in all. */
  private prune(): void {
    const dir = this.owned
    if (!dir) return
    const entries: {name: string; tool: string; mtimeMs: number}[] = []
    for (const name of readdirSync(dir.at())) {
      try {
        const stats = lstatSync(dir.at(name))
        if (!stats.isFile()) continue
        // Another process's file being written; else one left by a crash.
        if (name.endsWith('.tmp') && Date.now() - stats.mtimeMs < 60_000) continue
        // Not a name this store gives (an earlier version's, unbounded, or a leftover): it goes.
        if (FILE_NAME.test(name)) {
          entries.push({name, tool: name.split('-', 1)[0]!, mtimeMs: stats.mtimeMs})
        } else {
          this.unlink(name)
        }
      } catch {
        // gone meanwhile
      }
    }
    entries.sort((a, b) => b.mtimeMs - a.mtimeMs)
    const perTool = new Map<string, number>()
    let kept = 0
    for (const entry of entries) {
      const count = (perTool.get(entry.tool) ?? 0) + 1
      perTool.set(entry.tool, count)
      if (count > MAX_SHAPE_FILES_PER_TOOL || kept >= MAX_SHAPE_FILES) this.unlink(entry.name)
      else kept++
    }
  }

  /** Removes `name` from the directory held (unlink never follows a link). */
  private unlink(name: string): void {
    try {
      if (this.owned) unlinkSync(this.owned.at(name))
    } catch {
      // gone already
    }
  }

  private load(file: string, tool: ToolInfo): {shape: unknown} | null {
    const dir = this.held()
    if (!dir) return null
    try {
      const text = readRegularFileSync(dir.at(`${file}.json`), MAX_FILE_BYTES).toString('utf8')
      const entry = JSON.parse(text) as unknown
      if (
        isRecord(entry) &&
        entry.server === this.key(tool).server &&
        entry.tool === tool.tool &&
        'shape' in entry &&
        JSON.stringify(entry.shape).length <= MAX_SHAPE_CHARS
      )
        return {shape: entry.shape}
    } catch {
      // never seen, unreadable, or too big: no shape yet
    }
    return null
  }
}

/** `$XDG_CACHE_HOME/ptc-mcp/shapes`, else `~/.cache/ptc-mcp/shapes`. */
export function defaultShapesDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgHome('cache', env), 'ptc-mcp', 'shapes')
}

interface ShapeKey {
  identity: string
  /** A hash of the identity, kept in the file. */
  server: string
  /** The tool's file-name prefix. */
  tool: string
  /** The file name, less `.json`. */
  file: string
}

/** The keys of a listed tool (computed once per listing and identity). */
const keys = new WeakMap<ToolInfo, ShapeKey>()

function hash(text: string, chars: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, chars)
}
