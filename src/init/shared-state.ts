import type {ServerConfig} from '../config/schema.js'
import type {RawServer} from './sources.js'

import {isStdioServer} from '../config/transports.js'

/**
 * `init` copies servers; it does not move them. A server Claude Code (or Claude Desktop) also runs
 * then runs twice, and when it keeps state in a file, both processes write that file (two
 * server-memory processes on one MEMORY_FILE_PATH overwrite each other's graph). Such a server gets
 * a warning with the line that removes it from where it came from.
 */

/** A variable naming where a server keeps its state (MEMORY_FILE_PATH, DB_PATH, DATA_DIR...); not PATH. */
const STATE_VARIABLE = /(?:^|_)(?:FILE|PATH|DIR|DB|DATABASE|STORE|STORAGE)(?:_|$)/
/** Packages that keep state in a default file when no variable names one. */
const STATEFUL_PACKAGES = ['@modelcontextprotocol/server-memory']

/** `MEMORY_FILE_PATH=/home/me/memory.json`, or the package's default file, when the server keeps state in a file. */
export function stateFile(server: ServerConfig): string | undefined {
  if (!isStdioServer(server)) return undefined
  const named = Object.entries(server.env).filter(([key]) => key !== 'PATH' && STATE_VARIABLE.test(key))
  if (named.length > 0) return named.map(([key, value]) => `${key}=${value}`).join(', ')
  const stateful = STATEFUL_PACKAGES.find((name) => server.args.some((arg) => arg.includes(name)))
  return stateful === undefined ? undefined : `the default file of ${stateful}`
}

/** The warning for a server that would run twice on one state file, or undefined. */
export function sharedStateWarning(raw: RawServer, server: ServerConfig): string | undefined {
  const {scope} = raw.origin
  if (scope === 'file') return undefined
  const state = stateFile(server)
  if (state === undefined) return undefined
  const [runner, remove] =
    scope === 'claude-desktop'
      ? ['Claude Desktop', "remove it from Claude Desktop's config"]
      : ['Claude Code', `remove it there: \`claude mcp remove ${raw.name} --scope ${scope}\``]
  return `${runner} also runs it, and both would write ${state}: once ptc-mcp serves it, ${remove}`
}
