import {createHash} from 'node:crypto'
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {isAbsolute, join} from 'node:path'

import type {Logger} from '../log.js'
import type {ToolInfo} from './types.js'

import {isRecord} from '../guards.js'

/**
 * The result shapes seen per tool (SPEC §5 `observed_result`), kept across restarts in
 * `$XDG_CACHE_HOME/ptc-mcp/shapes/` (default `~/.cache/ptc-mcp/shapes/`): one small JSON file per
 * server, tool and hash of its schemas, so a tool whose schemas change starts afresh. A file that
 * cannot be read or written is only a lost hint: it is logged at debug level and ignored.
 */
export class ShapeStore {
  private readonly shapes = new Map<string, {shape: unknown} | null>()
  private readonly recorded = new Set<string>()

  /** `dir` null keeps shapes in memory only. */
  constructor(
    private readonly dir: string | null,
    private readonly logger?: Logger,
  ) {}

  /** The shape last recorded for this tool (this run or an earlier one), or undefined. */
  get(tool: ToolInfo): unknown {
    const key = shapeKey(tool)
    if (!this.shapes.has(key)) this.shapes.set(key, this.load(key, tool))
    return this.shapes.get(key)?.shape
  }

  /** Whether a shape was recorded for this tool in this run (later results are not described again). */
  recordedThisRun(tool: ToolInfo): boolean {
    return this.recorded.has(shapeKey(tool))
  }

  record(tool: ToolInfo, shape: unknown): void {
    const key = shapeKey(tool)
    this.recorded.add(key)
    this.shapes.set(key, {shape})
    if (!this.dir) return
    try {
      mkdirSync(this.dir, {recursive: true, mode: 0o700})
      const file = join(this.dir, `${key}.json`)
      const temporary = `${file}.${process.pid}.tmp`
      const entry = {server: tool.server, tool: tool.tool, shape}
      writeFileSync(temporary, JSON.stringify(entry), {mode: 0o600})
      renameSync(temporary, file)
    } catch (error) {
      this.logger?.debug(`could not keep the result shape of ${tool.name}: ${(error as Error).message}`)
    }
  }

  private load(key: string, tool: ToolInfo): {shape: unknown} | null {
    if (!this.dir) return null
    try {
      const entry = JSON.parse(readFileSync(join(this.dir, `${key}.json`), 'utf8')) as unknown
      if (isRecord(entry) && entry.server === tool.server && entry.tool === tool.tool && 'shape' in entry)
        return {shape: entry.shape}
    } catch {
      // never seen, or unreadable: no shape yet
    }
    return null
  }
}

/** `$XDG_CACHE_HOME/ptc-mcp/shapes`, else `~/.cache/ptc-mcp/shapes`. */
export function defaultShapesDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache')
  return join(base, 'ptc-mcp', 'shapes')
}

const keys = new WeakMap<ToolInfo, string>()

/** Server, tool and a hash of its schemas, as one file-name-safe key (computed once per listing). */
function shapeKey(tool: ToolInfo): string {
  let key = keys.get(tool)
  if (key === undefined) {
    const schemas = JSON.stringify([tool.inputSchema, tool.outputSchema ?? null])
    key = createHash('sha256').update(`${tool.server}\0${tool.tool}\0${schemas}`).digest('hex').slice(0, 40)
    keys.set(tool, key)
  }
  return key
}
