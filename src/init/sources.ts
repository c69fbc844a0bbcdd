import {readFile, realpath} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'

import {PtcError} from '../shared/errors.js'
import {isRecord} from '../shared/guards.js'
import {CONFIG_EXAMPLE_FILE} from '../shared/package-root.js'
import {
  claudeCodeUserConfigPath,
  claudeDesktopConfigPath,
  type InitEnvironment,
  resolveUserPath,
  tildify,
} from './paths.js'

/**
 * Where a server entry was found. Claude Code's scopes: `local` (`projects[<dir>].mcpServers` in
 * `~/.claude.json`, this directory only), `project` (the shared `.mcp.json`), `user` (top-level
 * `mcpServers` in `~/.claude.json`).
 */
export type SourceScope = 'local' | 'project' | 'user' | 'claude-desktop' | 'file'

export interface ServerOrigin {
  scope: SourceScope
  /** The file the entry is in. */
  path: string
  /** The directory the entry belongs to (local and project scopes): Claude Code starts it there. */
  projectDir?: string
}

/** A server entry as found, not yet checked: `entry` is whatever the JSON held. */
export interface RawServer {
  name: string
  entry: unknown
  origin: ServerOrigin
}

export interface SearchedFile {
  path: string
  found: boolean
}

export interface DiscoveredServers {
  /** One entry per name, the one Claude Code itself would use, in precedence order. */
  servers: RawServer[]
  /** Entries hidden by a same-named entry of a higher-precedence scope. */
  overridden: Array<{server: RawServer; by: ServerOrigin}>
  /** Entries the user switched off in Claude Code for this directory. */
  disabled: RawServer[]
  /**
   * Project (`.mcp.json`) entries Claude Code has not approved for this directory: still pending
   * approval (as in a freshly cloned repository) or turned down. Not in `servers` unless asked for.
   */
  unapproved: Array<{server: RawServer; state: 'pending' | 'rejected'}>
  /** Every file looked at, found or not. */
  sources: SearchedFile[]
}

/** Which Claude configs to read: `claude` (Claude Code), `claude-desktop`, or a path to a JSON file. */
export type InitSource = 'claude' | 'claude-desktop' | (string & {})

/**
 * Claude Code's own precedence when one name is defined in several scopes: local, then project,
 * then user. `init` keeps the entry Claude Code would run.
 */
const PRECEDENCE: readonly SourceScope[] = ['local', 'project', 'user']

/**
 * Reads the MCP servers of the chosen source. Missing or unreadable sources are PtcErrors.
 * `includeUnapproved`: keep the project servers Claude Code has not approved with the others.
 */
export async function discoverServers(
  from: InitSource,
  environment: InitEnvironment,
  includeUnapproved = false,
): Promise<DiscoveredServers> {
  if (from === 'claude' || from === 'claude-code') return discoverClaudeCode(environment, includeUnapproved)
  if (from === 'claude-desktop') {
    const path = claudeDesktopConfigPath(environment)
    const json = await readJson(path)
    if (json === undefined) {
      throw new PtcError('SOURCE_NOT_FOUND', `No Claude Desktop config at ${path}.`, {
        suggestion: 'Pass --from claude for Claude Code, or --from FILE with the path of your config.',
      })
    }
    return merge(serversOf(json, {scope: 'claude-desktop', path}, true), [], [{path, found: true}])
  }
  return discoverFile(resolveUserPath(from, environment), environment)
}

async function discoverClaudeCode(
  environment: InitEnvironment,
  includeUnapproved: boolean,
): Promise<DiscoveredServers> {
  const mcpJsonPath = join(environment.cwd, '.mcp.json')
  const claudeJsonPath = claudeCodeUserConfigPath(environment)
  const [mcpJson, claudeJson] = await Promise.all([readJson(mcpJsonPath), readJson(claudeJsonPath)])
  const searched = [
    {path: mcpJsonPath, found: mcpJson !== undefined},
    {path: claudeJsonPath, found: claudeJson !== undefined},
  ]
  if (mcpJson === undefined && claudeJson === undefined) {
    throw new PtcError(
      'SOURCE_NOT_FOUND',
      `No Claude Code MCP config found (looked for ${searched.map((s) => tildify(s.path, environment.home)).join(' and ')}).`,
      {
        suggestion: `Run init from your project directory, pass --from claude-desktop or --from FILE, or write the config by hand from ${CONFIG_EXAMPLE_FILE}.`,
      },
    )
  }
  const project =
    mcpJson === undefined ? [] : serversOf(mcpJson, projectOrigin(mcpJsonPath, environment.cwd), true)
  const user =
    claudeJson === undefined ? [] : serversOf(claudeJson, {scope: 'user', path: claudeJsonPath}, false)
  const local =
    claudeJson === undefined ? undefined : await projectEntry(claudeJson, claudeJsonPath, environment.cwd)
  // Switched off with /mcp; a project server approved or turned down when Claude Code asked.
  const switchedOff = new Set(stringList(local?.entry.disabledMcpServers))
  const approval = await projectApproval(local?.entry, environment)
  const every = [...(local?.servers ?? []), ...project, ...user]
  const unapproved = every.flatMap((server) => {
    if (server.origin.scope !== 'project' || switchedOff.has(server.name)) return []
    const state = approval(server.name)
    return state === 'approved' ? [] : [{server, state}]
  })
  const leftOut = new Set(includeUnapproved ? [] : unapproved.map((u) => u.server))
  return {
    ...merge(
      every.filter((s) => !switchedOff.has(s.name) && !leftOut.has(s)),
      every.filter((s) => switchedOff.has(s.name)),
      searched,
    ),
    unapproved,
  }
}

/**
 * Whether Claude Code approved a project (`.mcp.json`) server for this directory, as Claude Code
 * (2.1) decides it: turned down (`disabledMcpjsonServers`) in the directory's entry of
 * `~/.claude.json` or any settings file, rejected; approved by name (`enabledMcpjsonServers`) or
 * all at once (`enableAllProjectMcpServers`) in the user's `~/.claude/settings.json`, approved; so
 * too in the directory's entry or the project's own `.claude/settings.local.json` and
 * `.claude/settings.json`, but only once the user has trusted the directory
 * (`hasTrustDialogAccepted`): a cloned repository cannot approve its own servers. Else pending.
 */
async function projectApproval(
  local: Record<string, unknown> | undefined,
  environment: InitEnvironment,
): Promise<(name: string) => 'approved' | 'pending' | 'rejected'> {
  const read = async (path: string): Promise<unknown> => readJson(path).catch(() => null)
  const [projectLocal, projectShared, user] = await Promise.all([
    read(join(environment.cwd, '.claude', 'settings.local.json')),
    read(join(environment.cwd, '.claude', 'settings.json')),
    read(join(environment.home, '.claude', 'settings.json')),
  ])
  const records = (list: unknown[]) => list.filter((record) => isRecord(record))
  const trusted = local?.hasTrustDialogAccepted === true
  const approving = records([user, ...(trusted ? [local, projectLocal, projectShared] : [])])
  const enabled = new Set(approving.flatMap((record) => stringList(record.enabledMcpjsonServers)))
  const all = approving.some((record) => record.enableAllProjectMcpServers === true)
  const rejected = new Set(
    records([local, projectLocal, projectShared, user]).flatMap((record) =>
      stringList(record.disabledMcpjsonServers),
    ),
  )
  return (name) => {
    if (rejected.has(name)) return 'rejected'
    return all || enabled.has(name) ? 'approved' : 'pending'
  }
}

async function discoverFile(path: string, environment: InitEnvironment): Promise<DiscoveredServers> {
  const json = await readJson(path)
  if (json === undefined) {
    throw new PtcError('SOURCE_NOT_FOUND', `No such file: ${path}.`, {
      suggestion: 'Pass --from claude, --from claude-desktop, or the path of a JSON file with "mcpServers".',
    })
  }
  if (!isRecord(json) || (json.mcpServers === undefined && json.projects === undefined)) {
    throw new PtcError('SOURCE_INVALID', `${path} has no "mcpServers" object.`, {
      suggestion: 'Pass a Claude config: .mcp.json, ~/.claude.json or claude_desktop_config.json.',
    })
  }
  // A project's .mcp.json keeps working from elsewhere when its servers start in its directory.
  const origin: ServerOrigin =
    basename(path) === '.mcp.json' ? projectOrigin(path, dirname(path)) : {scope: 'file', path}
  const servers = serversOf(json, origin, false)
  const local = await projectEntry(json, path, environment.cwd)
  return merge([...(local?.servers ?? []), ...servers], [], [{path, found: true}])
}

function projectOrigin(path: string, projectDir: string): ServerOrigin {
  return {scope: 'project', path, projectDir}
}

/** `projects["<cwd>"]` of a `~/.claude.json`, matched on the directory as given or its real path. */
async function projectEntry(
  claudeJson: unknown,
  path: string,
  cwd: string,
): Promise<{entry: Record<string, unknown>; servers: RawServer[]} | undefined> {
  if (!isRecord(claudeJson) || !isRecord(claudeJson.projects)) return undefined
  const {projects} = claudeJson
  const real = await realpath(cwd).catch(() => cwd)
  // Claude Code on Windows writes the keys with forward slashes.
  const candidates = [cwd, real].flatMap((dir) => [dir, dir.replaceAll('\\', '/')])
  const key = candidates.find((dir) => isRecord(projects[dir]))
  if (key === undefined) return undefined
  const entry = projects[key] as Record<string, unknown>
  const servers = serversOf(entry, {scope: 'local', path, projectDir: cwd}, false)
  return {entry, servers}
}

/**
 * The `mcpServers` map of one config object. `required`: a file that exists only to hold servers
 * (`.mcp.json`, Claude Desktop) without that map is malformed; `~/.claude.json` often has none.
 */
function serversOf(json: unknown, origin: ServerOrigin, required: boolean): RawServer[] {
  const servers = isRecord(json) ? json.mcpServers : undefined
  if (servers === undefined && !required) return []
  if (!isRecord(servers)) {
    const where = origin.scope === 'local' ? `projects["${origin.projectDir}"].mcpServers` : 'mcpServers'
    throw new PtcError('SOURCE_INVALID', `${origin.path}: "${where}" is not an object of servers.`, {
      suggestion: 'Fix the file in Claude (claude mcp list shows what it reads), or pass another --from.',
    })
  }
  return Object.entries(servers).map(([name, entry]) => ({name, entry, origin}))
}

function merge(candidates: RawServer[], disabled: RawServer[], searched: SearchedFile[]): DiscoveredServers {
  const rank = (s: RawServer) => {
    const at = PRECEDENCE.indexOf(s.origin.scope)
    return at === -1 ? PRECEDENCE.length : at
  }
  // A stable sort keeps each file's own order within a scope.
  const ordered = [...candidates].sort((a, b) => rank(a) - rank(b))
  const winners = new Map<string, RawServer>()
  const overridden: DiscoveredServers['overridden'] = []
  for (const server of ordered) {
    const winner = winners.get(server.name)
    if (winner) overridden.push({server, by: winner.origin})
    else winners.set(server.name, server)
  }
  return {servers: [...winners.values()], overridden, disabled, unapproved: [], sources: searched}
}

/** The parsed file, or undefined when it does not exist. Unreadable or invalid JSON is a PtcError. */
async function readJson(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new PtcError('SOURCE_INVALID', `Cannot read ${path}: ${(error as Error).message}`, {
      suggestion: 'Check the file permissions, or pass another --from.',
      cause: error,
    })
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new PtcError('SOURCE_INVALID', `${path} is not valid JSON: ${(error as Error).message}`, {
      suggestion: 'Fix the file (Claude itself would not read it either), or pass another --from.',
      cause: error,
    })
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/** `~/.claude.json, user scope`: where a server came from, for people. */
export function describeOrigin(origin: ServerOrigin, home = ''): string {
  const show = (path: string) => (home ? tildify(path, home) : path)
  switch (origin.scope) {
    case 'claude-desktop': {
      return `${show(origin.path)}, Claude Desktop`
    }

    case 'local': {
      return `${show(origin.path)}, local scope of ${show(origin.projectDir ?? '?')}`
    }
    case 'project':
    case 'user': {
      return `${show(origin.path)}, ${origin.scope} scope`
    }

    default: {
      return show(origin.path)
    }
  }
}
