/**
 * `ptc-mcp init` (SPEC §9): a config.yaml from the MCP servers Claude Code or Claude Desktop already
 * has. Reading and converting happen here, without touching the output; the command decides whether
 * to write ({@link writeConfigFile}) or print.
 */
import {join} from 'node:path'

import type {ServerConfig} from '../config/schema.js'

import {isRemoteServer} from '../config/transports.js'
import {assignNames, convertServer} from './convert.js'
import {runningLauncher} from './launcher.js'
import {
  defaultConfigPath,
  type InitEnvironment,
  resolveEnvironment,
  resolveUserPath,
  tildify,
} from './paths.js'
import {
  claudeAddCommand,
  type ClaudeScope,
  type ConfigEntry,
  mcpJsonEntry,
  renderConfigYaml,
  shellQuote,
} from './render.js'
import {protectSecrets, referencedVariables, type SecretFinding, type VariableUse} from './secrets.js'
import {sharedStateWarning} from './shared-state.js'
import {
  describeOrigin,
  discoverServers,
  type InitSource,
  type RawServer,
  type SearchedFile,
  type ServerOrigin,
  type SourceScope,
} from './sources.js'

export {CLAUDE_SCOPES, type ClaudeScope} from './render.js'
export type {InitSource} from './sources.js'
export {assertWritable, writeConfigFile} from './write.js'

export interface InitOptions {
  /** `claude` (Claude Code: `.mcp.json` and `~/.claude.json`), `claude-desktop`, or a JSON file. Default: claude. */
  from?: InitSource
  /** Where the config goes; `~/` and relative paths are resolved. Default: `defaultConfigPath()`. */
  output?: string
  /** Write `${VAR}` references instead of literal secrets. Default: false (copy them, and say so). */
  envRefs?: boolean
  /** Scope in the printed `claude mcp add` line. Default: user. */
  scope?: ClaudeScope
  /** Import the project servers Claude Code has not approved (pending or turned down) too. Default: false. */
  includeUnapproved?: boolean
  /** Home, cwd, platform and environment variables. Default: the process's own. */
  environment?: Partial<InitEnvironment>
  /** The argv that starts ptc-mcp in the printed registration. Default: this installation's ({@link runningLauncher}). */
  launcher?: readonly string[]
}

export interface InitServer {
  /** The name in config.yaml. */
  name: string
  transport: ServerConfig['transport']
  /** Where it came from, for people: `/repo/.mcp.json (project scope)`. */
  from: string
  scope: SourceScope
  /** The name in Claude, when it had to change. */
  claudeName?: string
}

export interface InitSkipped {
  /** The name in Claude. */
  name: string
  reason: string
  from: string
}

export interface InitPlan {
  /** Absolute path the config is for. */
  output: string
  /** Every Claude config file looked at. */
  sources: SearchedFile[]
  servers: InitServer[]
  skipped: InitSkipped[]
  secrets: SecretFinding[]
  /** Variables ptc-mcp will need in its environment (`${VAR}` without a default). */
  envVars: VariableUse[]
  /** Things worth knowing that are not errors: renamed servers, assumed transports, OAuth. */
  notes: string[]
  yaml: string
  claudeAddCommand: string
  /** The same registration as a `.mcp.json` entry. */
  mcpJson: ReturnType<typeof mcpJsonEntry>
  /** Commands that remove the converted servers from Claude Code (for the user to run, if they want). */
  removeCommands: RemoveCommand[]
  /** The `ptc-mcp auth NAME` line each OAuth server needs once (SPEC §9, §13). */
  signIn: SignInCommand[]
  /**
   * When the project's `.mcp.json` has servers: the init line that writes them into a config of
   * this project only (`./ptc-mcp.yaml`) registered at project scope, instead of one every project uses.
   */
  projectRegistration: string | null
  /** What to run next: `ptc-mcp doctor` for this config (every server connects, the sandbox holds). */
  doctorCommand: string
}

export interface SignInCommand {
  server: string
  command: string
}

export interface RemoveCommand {
  command: string
  /** The directory to run it in (local and project scopes), or null. */
  cwd: string | null
}

interface Converted {
  raw: RawServer
  server: ServerConfig
  notes: string[]
}

/** Reads the source, converts every server it can and renders the config. Writes nothing. */
export async function planInit(options: InitOptions = {}): Promise<InitPlan> {
  const environment = resolveEnvironment(options.environment)
  const {home} = environment
  const output =
    options.output === undefined
      ? defaultConfigPath(environment)
      : resolveUserPath(options.output, environment)
  const includeUnapproved = options.includeUnapproved ?? false
  const discovered = await discoverServers(options.from ?? 'claude', environment, includeUnapproved)
  const from = (origin: ServerOrigin) => describeOrigin(origin, home)

  const skipped: InitSkipped[] = [
    ...discovered.disabled.map((s) => ({
      name: s.name,
      from: from(s.origin),
      reason: 'disabled in Claude Code for this project',
    })),
    ...(includeUnapproved ? [] : discovered.unapproved).map(({server, state}) => ({
      name: server.name,
      from: from(server.origin),
      reason: `${UNAPPROVED_TEXT[state]}: Claude Code does not run it, and neither will ptc-mcp (--include-unapproved imports it)`,
    })),
    ...discovered.overridden.map(({server, by}) => ({
      name: server.name,
      from: from(server.origin),
      reason: `Claude Code uses the one in ${from(by)} instead`,
    })),
  ]
  const converted: Converted[] = []
  for (const raw of discovered.servers) {
    const result = convertServer(raw)
    if (result.ok) converted.push({raw, server: result.server, notes: result.notes})
    else skipped.push({name: raw.name, from: from(raw.origin), reason: result.reason})
  }

  const names = assignNames(converted.map((c) => c.raw.name))
  const notes: string[] = []
  if (includeUnapproved)
    for (const {server, state} of discovered.unapproved)
      notes.push(`${server.name}: imported although ${UNAPPROVED_TEXT[state]} (--include-unapproved)`)
  const renamed = converted.map((c, index) => {
    const name = names[index] ?? c.raw.name
    if (name !== c.raw.name)
      notes.push(`"${c.raw.name}" is named "${name}" in the config (names are [A-Za-z0-9_-]+ and unique)`)
    notes.push(...c.notes.map((note) => `${name}: ${note}`))
    const shared = sharedStateWarning(c.raw, c.server)
    if (shared !== undefined) notes.push(`${name}: warning: ${shared}`)
    return {...c.server, name}
  })
  const launcher = options.launcher ?? runningLauncher()
  const authLine = (name: string) => signInLine(launcher, name, output, environment)
  for (const server of renamed) {
    if (isRemoteServer(server) && server.oauth === undefined && Object.keys(server.headers).length === 0)
      notes.push(
        `${server.name}: no headers: if it signs in with OAuth, run \`${authLine(server.name)}\` once`,
      )
  }
  const {servers, secrets} = protectSecrets(renamed, {envRefs: options.envRefs ?? false})
  const envVars = referencedVariables(servers)

  const entries: ConfigEntry[] = servers.map((server, index) => {
    const source = converted[index]
    const comments = [`from ${source ? from(source.raw.origin) : 'unknown'}`]
    if (source && source.raw.name !== server.name) comments.push(`named "${source.raw.name}" in Claude`)
    for (const secret of secrets.filter((s) => s.server === server.name && !s.replaced)) {
      comments.push(
        `${secret.field} is a literal secret: consider \${${secret.variable}} (ptc-mcp init --env-refs)`,
      )
    }
    return {server, comments}
  })
  const found = discovered.sources.filter((s) => s.found).map((s) => tildify(s.path, home))
  const header = [
    `ptc-mcp config written by "ptc-mcp init" from ${found.join(' and ') || 'nothing'}.`,
    'Every key is described in config.example.yaml. ${VAR} and ${VAR:-default} are expanded from',
    "ptc-mcp's own environment; stdio servers get their env below on top of a minimal one (PATH, HOME, ...),",
    'not the whole environment Claude gave them.',
    ...(envVars.length > 0
      ? [`Variables to export before starting ptc-mcp: ${envVars.map((v) => v.name).join(', ')}.`]
      : []),
  ]
  const scope = options.scope ?? 'user'
  return {
    output,
    sources: discovered.sources,
    servers: servers.map((server, index) => {
      const source = converted[index]
      return {
        name: server.name,
        transport: server.transport,
        from: source ? from(source.raw.origin) : 'unknown',
        scope: source?.raw.origin.scope ?? 'file',
        ...(source && source.raw.name !== server.name && {claudeName: source.raw.name}),
      }
    }),
    skipped,
    secrets,
    envVars,
    notes,
    yaml: renderConfigYaml(entries, header),
    claudeAddCommand: claudeAddCommand(output, scope, environment.platform, launcher),
    // Always with --config: a ./config.yaml in the working directory would be found before the default.
    doctorCommand: [...launcher, 'doctor', '--config', output]
      .map((word) => shellQuote(word, environment.platform))
      .join(' '),
    mcpJson: mcpJsonEntry(output, launcher),
    removeCommands: converted.flatMap(({raw}) => removeCommand(raw, environment.platform)),
    signIn: servers
      .filter((server) => isRemoteServer(server) && server.oauth !== undefined)
      .map((server) => ({server: server.name, command: authLine(server.name)})),
    projectRegistration: projectRegistration(discovered, {
      output,
      scope,
      launcher,
      platform: environment.platform,
    }),
  }
}

const UNAPPROVED_TEXT = {
  pending: 'pending approval in Claude Code for this project (a .mcp.json server nobody has approved here)',
  rejected: 'turned down in Claude Code for this project',
} as const

/**
 * `ptc-mcp init --output <project>/ptc-mcp.yaml --scope project`: offered when the project's
 * `.mcp.json` has servers and the config being written is not already that project's own.
 */
function projectRegistration(
  discovered: {servers: RawServer[]; unapproved: Array<{server: RawServer}>},
  {
    output,
    scope,
    launcher,
    platform,
  }: {output: string; scope: ClaudeScope; launcher: readonly string[]; platform: NodeJS.Platform},
): string | null {
  const project = [...discovered.servers, ...discovered.unapproved.map((u) => u.server)].find(
    (server) => server.origin.scope === 'project',
  )
  const dir = project?.origin.projectDir
  if (dir === undefined) return null
  const own = join(dir, 'ptc-mcp.yaml')
  if (scope === 'project' && output === own) return null
  return [...launcher, 'init', '--output', own, '--scope', 'project']
    .map((word) => shellQuote(word, platform))
    .join(' ')
}

/**
 * `ptc-mcp auth NAME` as this installation runs it (like the registration line), with `--config`
 * when the config is not where ptc-mcp looks by default.
 */
function signInLine(
  launcher: readonly string[],
  name: string,
  output: string,
  environment: InitEnvironment,
): string {
  const words = [...launcher, 'auth', name]
  if (output !== defaultConfigPath(environment)) words.push('--config', output)
  return words.map((w) => shellQuote(w, environment.platform)).join(' ')
}

/** How to take a server out of Claude Code once ptc-mcp proxies it. Claude Desktop has no CLI for it. */
function removeCommand({name, origin}: RawServer, platform: NodeJS.Platform): RemoveCommand[] {
  if (origin.scope !== 'user' && origin.scope !== 'local' && origin.scope !== 'project') return []
  const command = ['claude', 'mcp', 'remove', '--scope', origin.scope, name]
    .map((w) => shellQuote(w, platform))
    .join(' ')
  // Local and project scopes belong to a directory: the command must run there.
  return [{command, cwd: origin.scope === 'user' ? null : (origin.projectDir ?? null)}]
}
