import {lstatSync, readFileSync, readlinkSync, statSync} from 'node:fs'
import {homedir} from 'node:os'
import {join, resolve} from 'node:path'
import {isMap, isScalar, parseDocument} from 'yaml'

import type {Logger} from '../shared/log.js'
import type {Environment} from './expand.js'

import {ConfigError} from '../shared/errors.js'
/**
 * Where the config is (SPEC §3): `--config`, `PTC_MCP_CONFIG`, `./ptc-mcp.yaml`, `./config.yaml`
 * when it is ptc-mcp's, `$XDG_CONFIG_HOME/ptc-mcp/config.yaml` (default `~/.config/ptc-mcp/config.yaml`).
 */
import {xdgHome} from '../shared/xdg.js'
import {configSchema} from './schema.js'

export type ConfigSource = 'flag' | 'env' | 'cwd' | 'xdg'

export interface ConfigLookup {
  /** The `--config` flag value, if given. Relative paths resolve against `cwd`; `~/` is the home directory. */
  flag?: string
  /** Environment for discovery (PTC_MCP_CONFIG, XDG_CONFIG_HOME, HOME) and `${VAR}` expansion. Default: process.env. */
  env?: Environment
  /** Directory `./ptc-mcp.yaml` and `./config.yaml` are looked for in. Default: process.cwd(). */
  cwd?: string
  /** Told (at debug level) why a `./config.yaml` was passed over. Default: nobody. */
  logger?: Logger
}

export interface FoundConfig {
  /** The file to use, or null when none exists (then the defaults apply). */
  path: string | null
  /** Every path looked at, in order, ending with the one found. */
  searched: string[]
  source: ConfigSource | null
}

export const CONFIG_ENV_VARIABLE = 'PTC_MCP_CONFIG'
export const CONFIG_FILE_NAME = 'config.yaml'
/** A project-local config with a name no other tool claims. */
const PROJECT_FILE_NAME = 'ptc-mcp.yaml'

const OWN_KEYS = new Set(Object.keys(configSchema.shape))

/**
 * Finds the config. An explicit path (flag or variable) that does not exist is a ConfigError;
 * otherwise finding nothing is fine. A `./config.yaml` with a top-level key that is not ptc-mcp's
 * belongs to another application and is passed over.
 */
export function findConfig(options: ConfigLookup = {}): FoundConfig {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const home = env.HOME || homedir()
  const explicit: [ConfigSource, string | undefined, string][] = [
    ['flag', options.flag, '--config'],
    ['env', env[CONFIG_ENV_VARIABLE], CONFIG_ENV_VARIABLE],
  ]
  for (const [source, given, origin] of explicit) {
    if (!given) continue
    const path = resolve(cwd, expandHome(given, home))
    if (!exists(path)) {
      const target = danglingLinkTarget(path)
      const what =
        target === undefined
          ? `Config file not found: ${path} (from ${origin})`
          : `Config file ${path} (from ${origin}) is a symbolic link to ${target}, which does not exist`
      throw new ConfigError(what, {
        suggestion: `Check the path given in ${origin}, or create the file (ptc-mcp init).`,
      })
    }

    return {path, searched: [path], source}
  }

  const configHome = xdgHome('config', env, home)
  const candidates: [ConfigSource, string, boolean][] = [
    ['cwd', resolve(cwd, PROJECT_FILE_NAME), false],
    ['cwd', resolve(cwd, CONFIG_FILE_NAME), true],
    ['xdg', join(configHome, 'ptc-mcp', CONFIG_FILE_NAME), false],
  ]
  const searched: string[] = []
  for (const [source, path, shared] of candidates) {
    searched.push(path)
    if (!exists(path)) continue
    const foreign = shared ? foreignKeys(path) : []
    if (foreign.length === 0) return {path, searched, source}
    options.logger?.debug(
      `${path} is not a ptc-mcp config (top-level ${foreign.length === 1 ? 'key' : 'keys'} ${foreign.join(', ')}): skipped`,
    )
  }

  return {path: null, searched, source: null}
}

/**
 * The top-level keys of a YAML file that are not ptc-mcp's (`[]` when the file is ptc-mcp's, or
 * empty). A file that does not parse is judged by its unindented `key:` lines, so a broken
 * ptc-mcp config is still reported rather than passed over; one that cannot be read is kept (the
 * read error is reported when loading).
 */
export function foreignKeys(path: string): string[] {
  let text: string
  try {
    if (!statSync(path).isFile()) return []
    text = readFileSync(path, 'utf8')
  } catch {
    return []
  }

  const doc = parseDocument(text, {prettyErrors: false})
  let keys: string[]
  if (doc.errors.length === 0 && doc.contents !== null) {
    if (!isMap(doc.contents)) return ['(not a mapping)']
    keys = doc.contents.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : '(complex key)'))
  } else {
    keys = [...text.matchAll(/^([^\s#:'"-][^:#]*?)\s*:(?:\s|$)/gm)].map((match) => match[1] ?? '')
  }

  return [...new Set(keys.filter((key) => !OWN_KEYS.has(key)))].slice(0, 5)
}

export function exists(path: string): boolean {
  try {
    return statSync(path, {throwIfNoEntry: false}) !== undefined
  } catch (error) {
    // Anything but "not there" (e.g. a parent we may not search) is reported when reading, not skipped.
    return (error as NodeJS.ErrnoException).code !== 'ENOTDIR'
  }
}

/** Where a symbolic link that leads nowhere points; undefined for anything else. */
function danglingLinkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined
  } catch {
    return undefined
  }
}

function expandHome(path: string, home: string): string {
  return path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path
}
