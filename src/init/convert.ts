import type {RemoteServerConfig, ServerConfig, StdioServerConfig} from '../config/schema.js'

import {isHttpUrl} from '../config/schema.js'
import {launchesSelf} from '../config/self-launch.js'
import {
  DEFAULT_TRANSPORT,
  isStdioServer,
  TRANSPORT_KINDS,
  type TransportKind,
  TRANSPORTS,
} from '../config/transports.js'
import {isRecord} from '../shared/guards.js'
import {DEFAULT_CONNECT_TIMEOUT_SECONDS, PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS} from '../shared/limits.js'
import {normaliseName} from '../shared/naming.js'
import {type RawServer} from './sources.js'

export type ConvertResult =
  {ok: true; server: ServerConfig; notes: string[]} | {ok: false; reason: string; self?: boolean}

/**
 * One Claude server entry as a ptc-mcp server. Field values are kept as written: Claude Code expands
 * `${VAR}` and `${VAR:-default}` in the same fields with the same syntax ptc-mcp does, so references
 * keep working. Claude Desktop expands nothing, so a literal `${` from there is escaped as `$${`.
 * The name is the Claude name; {@link assignNames} makes it a valid, unique ptc-mcp name.
 */
export function convertServer({name, entry, origin}: RawServer): ConvertResult {
  if (!isRecord(entry)) return {ok: false, reason: 'the entry is not an object'}
  if (entry.disabled === true) return {ok: false, reason: 'marked "disabled" in the source'}
  const literal = origin.scope === 'claude-desktop' ? escapeReferences : (value: string) => value
  const notes: string[] = []
  const type = transportOf(entry, notes)
  if (type === undefined) return {ok: false, reason: 'neither a "command" (stdio) nor a "url" (http, sse)'}
  const kind = TRANSPORT_KINDS.find((k) => TRANSPORTS[k].claudeTypes.includes(type))
  if (kind === undefined) {
    return {
      ok: false,
      reason: `transport "${type}" is not supported by ptc-mcp (${TRANSPORT_KINDS.join(', ')})`,
    }
  }

  if (!TRANSPORTS[kind].remote) {
    if (typeof entry.command !== 'string' || entry.command.trim() === '') {
      return {ok: false, reason: 'stdio entry without a "command"'}
    }
    const args = stringArray(entry.args)
    if (args === undefined) return {ok: false, reason: '"args" is not a list of strings'}
    const env = stringRecord(entry.env)
    if (env === undefined) return {ok: false, reason: '"env" is not an object of strings'}
    const server: ServerConfig = {
      name,
      transport: 'stdio',
      command: literal(entry.command),
      args: args.map(literal),
      env: mapValues(env, literal),
    }
    const cwd = typeof entry.cwd === 'string' && entry.cwd !== '' ? entry.cwd : origin.projectDir
    // Claude Code starts project servers in the project directory: relative paths in them mean that.
    if (cwd !== undefined) server.cwd = literal(cwd)
    if (runsPtcMcp(server)) {
      return {ok: false, self: true, reason: 'it runs ptc-mcp itself (ptc-mcp proxying itself would recurse)'}
    }
    raiseRunnerTimeout(server, notes)
    return {ok: true, server, notes}
  }

  if (entry.headersHelper !== undefined) {
    return {ok: false, reason: 'its headers come from a "headersHelper" command, which ptc-mcp cannot run'}
  }
  const oauth = entry.oauth === undefined ? undefined : convertOAuth(entry.oauth)
  if (oauth === null) return {ok: false, reason: '"oauth" is not an object with clientId and callbackPort'}
  if (typeof entry.url !== 'string' || entry.url.trim() === '')
    return {ok: false, reason: `${kind} entry without a "url"`}
  const {url} = entry
  // A URL built from ${VAR} can only be checked once expanded, when ptc-mcp loads the config.
  if (!url.includes('${') && !isHttpUrl(url)) return {ok: false, reason: `"url" is not an http(s) URL`}
  const headers = stringRecord(entry.headers)
  if (headers === undefined) return {ok: false, reason: '"headers" is not an object of strings'}
  return {
    ok: true,
    server: {
      name,
      transport: kind as RemoteServerConfig['transport'],
      url: literal(url),
      headers: mapValues(headers, literal),
      ...(oauth === undefined ? {} : {oauth}),
    },
    notes,
  }
}

/**
 * Claude Code's `oauth` settings (`clientId`, `callbackPort`) as ptc-mcp's (`client_id`,
 * `callback_port`); `{}` when it has neither. Null for something that is not such an object.
 */
function convertOAuth(value: unknown): NonNullable<RemoteServerConfig['oauth']> | null {
  if (!isRecord(value)) return null
  const {clientId, callbackPort} = value
  if (clientId !== undefined && (typeof clientId !== 'string' || clientId === '')) return null
  if (callbackPort !== undefined && !(Number.isInteger(callbackPort) && Number(callbackPort) > 0)) return null
  return {
    ...(clientId === undefined ? {} : {client_id: clientId}),
    ...(callbackPort === undefined ? {} : {callback_port: Number(callbackPort)}),
  }
}

/**
 * ptc-mcp's transport for an entry: Claude's `type`, or, when absent, stdio for a command and
 * streamable HTTP for a URL (sse when the path ends in /sse, the convention of SSE servers).
 */
function transportOf(entry: Record<string, unknown>, notes: string[]): string | undefined {
  const {type} = entry
  if (typeof type === 'string' && type !== '') return type
  if (entry.command !== undefined) return DEFAULT_TRANSPORT
  if (typeof entry.url !== 'string') return undefined
  const sse = /\/sse\/?$/.test(entry.url.split(/[?#]/, 1)[0] ?? '')
  notes.push(`no "type" given for ${entry.url}; assumed ${sse ? 'sse' : 'http (streamable HTTP)'}`)
  return sse ? 'sse' : ('http' satisfies TransportKind)
}

/** Commands that fetch a package and run it, and the subcommands that make others do so. */
const RUNNERS = new Set(['bunx', 'npx', 'pnpx', 'uvx'])
const RUNNER_SUBCOMMANDS: Record<string, readonly string[]> = {
  npm: ['exec', 'x'],
  pnpm: ['dlx'],
  yarn: ['dlx'],
  bun: ['x'],
  uv: ['tool'],
}

/** A server a package runner starts gets a longer connect timeout, and a note that says why. */
function raiseRunnerTimeout(server: StdioServerConfig, notes: string[]): void {
  const runner = packageRunner(server.command, server.args)
  if (runner === undefined) return
  server.connect_timeout_seconds = PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS
  notes.push(
    `connect_timeout_seconds: ${PACKAGE_RUNNER_CONNECT_TIMEOUT_SECONDS}, as ${runner} downloads the package on its first start (the default ${DEFAULT_CONNECT_TIMEOUT_SECONDS} s is often too short)`,
  )
}

/** `npx`, `pnpm dlx`..., when the command fetches a package to run (its first start downloads it). */
export function packageRunner(command: string, args: readonly string[]): string | undefined {
  const name = (command.split(/[/\\]/).pop() ?? command).replace(/\.(cmd|exe)$/i, '')
  if (RUNNERS.has(name)) return name
  const [sub] = args
  return sub !== undefined && RUNNER_SUBCOMMANDS[name]?.includes(sub) ? `${name} ${sub}` : undefined
}

/**
 * Whether a stdio server runs ptc-mcp: what the loader refuses (`ptc-mcp serve`, this package's
 * bin), and any command or argument naming ptc-mcp (or the Python original's `ptc_mcp`).
 */
export function runsPtcMcp(server: ServerConfig): boolean {
  if (!isStdioServer(server)) return false
  return launchesSelf(server) || [server.command, ...server.args].some((word) => /ptc[-_]mcp/i.test(word))
}

/**
 * Valid, unique ptc-mcp names (SPEC §3): characters outside `[A-Za-z0-9_-]` become `_`, and a name
 * that would clash with an earlier one once tools are namespaced (`my-srv` vs `my_srv`) gets `_2`,
 * `_3`... Returns the new names in order.
 */
export function assignNames(names: readonly string[]): string[] {
  const taken = new Set<string>()
  return names.map((original) => {
    const base = original.replaceAll(/[^A-Za-z0-9_-]+/gu, '_').replaceAll(/^_+|_+$/g, '') || 'server'
    let name = base
    for (let n = 2; taken.has(normaliseName(name)); n++) name = `${base}_${n}`
    taken.add(normaliseName(name))
    return name
  })
}

/** `${` is ptc-mcp's reference syntax; `$${` is its escape for a literal one. */
function escapeReferences(value: string): string {
  // A function, because in a replacement string `$$` itself means one `$`.
  return value.replaceAll('${', () => '$${')
}

/** Strings as they are, numbers and booleans as JSON writes them (Claude accepts those too). */
function scalarString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

function stringArray(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) return undefined
  const strings = value.map(scalarString)
  return strings.every((s) => s !== undefined) ? (strings as string[]) : undefined
}

function stringRecord(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return {}
  if (!isRecord(value)) return undefined
  const out: Record<string, string> = {}
  for (const [key, raw] of Object.entries(value)) {
    const text = scalarString(raw)
    if (text === undefined) return undefined
    out[key] = text
  }
  return out
}

function mapValues(record: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]))
}
