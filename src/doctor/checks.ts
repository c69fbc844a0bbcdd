import {homedir} from 'node:os'

import type {Config, ServerConfig} from '../config/schema.js'
import type {PythonInfo} from '../sandbox/backend.js'
import type {Logger} from '../shared/log.js'
import type {CheckResult, DoctorCheck} from './check.js'

import {loadConfig} from '../config/load.js'
import {GENERIC_FIX, loadToolRegistry, type ToolRegistry} from '../downstream/index.js'
import {resolvePython} from '../execution/index.js'
import {describeState, describeStateLine} from '../oauth/status.js'
import {TokenStore} from '../oauth/store.js'
import {rejectedLine} from '../permissions/claude-settings.js'
import {askUnlisted, PermissionPolicy} from '../permissions/policy.js'
import {CONFIG_EXAMPLE_FILE} from '../shared/package-root.js'
import {counted} from '../shared/plural.js'
import {failure} from './check.js'
import {flowsChecks} from './flows-check.js'
import {programsChecks} from './programs-check.js'
import {probeSandbox} from './sandbox-probe.js'

export interface DoctorOptions {
  configFlag?: string
  logger: Logger
  /** Bound on each server's first connection attempt. Default 30 s. */
  connectTimeoutMs?: number
  /** Aborted (Ctrl-C): the sandbox probe stops its program. */
  signal?: AbortSignal
  /** `~` and the project of Claude Code's settings. Default: the home directory and the working directory. */
  home?: string
  projectDir?: string
  /** Claude Code's managed-settings directory. Default: the platform's. */
  managedDir?: string
}

const MIN_NODE = [20, 19] as const

/** The checks of `ptc-mcp doctor`, ready to run concurrently; `close()` releases what they started. */
export async function doctorChecks(
  options: DoctorOptions,
): Promise<{checks: DoctorCheck[]; close(): Promise<void>}> {
  const loaded = await loadConfig({flag: options.configFlag}).then(
    (value) => ({ok: true as const, ...value}),
    (error: unknown) => ({ok: false as const, error}),
  )
  const config = loaded.ok ? loaded.config : undefined
  const python = resolvePython(config?.execution.python ?? 'python3')
  python.catch(() => {}) // reported by its own check
  const permissions = config
    ? new PermissionPolicy(config.permissions, {
        home: options.home ?? homedir(),
        projectDir: options.projectDir ?? process.cwd(),
        managedDir: options.managedDir,
        logger: options.logger.child('permissions'),
        watchIntervalMs: 0,
      })
    : undefined
  const {ToolRegistry} = await loadToolRegistry()
  const registry = config
    ? new ToolRegistry(config, {
        logger: options.logger.child('downstream'),
        connectTimeoutMs: options.connectTimeoutMs,
        secrets: loaded.ok ? loaded.secrets : [],
        visibility: permissions,
      })
    : undefined
  registry?.start()

  const checks: DoctorCheck[] = [
    {id: 'node', title: 'Node.js', run: async () => checkNode()},
    {id: 'python', title: 'Python', run: () => checkPython(python)},
    {
      id: 'sandbox',
      title: 'Sandbox',
      run: () => checkSandbox(python, config, options.logger, options.signal),
    },
    {
      id: 'config',
      title: 'Config',
      run: async () => (loaded.ok ? configCheck(loaded) : failure(loaded.error)),
    },
    ...(config?.servers ?? []).map((server): DoctorCheck => ({
      id: `server:${server.name}`,
      title: `Server ${server.name}`,
      run: () => checkServer(registry!, server),
    })),
    ...(registry && (config?.tools.allow ?? config?.tools.block)
      ? [{id: 'tools', title: 'Tool rules', run: () => checkToolRules(registry)} satisfies DoctorCheck]
      : []),
    ...programsChecks(config, python, registry, loaded),
    ...(permissions
      ? [
          {
            id: 'permissions',
            title: 'Permission rules',
            run: async () => checkPermissions(permissions, config!),
          } satisfies DoctorCheck,
        ]
      : []),
    ...flowsChecks(registry, config?.flows),
  ]
  return {
    checks,
    async close() {
      permissions?.close()
      await registry?.close()
    },
  }
}

function configCheck(loaded: {
  path: string | null
  searched: string[]
  config: Config
}): Omit<CheckResult, 'id' | 'ms' | 'title'> {
  const count = loaded.config.servers.length
  if (loaded.path) return {status: 'pass', detail: `${loaded.path} (${counted(count, 'server')})`}
  return {
    status: 'warn',
    detail: `no config file (looked in ${loaded.searched.join(', ')}); no servers`,
    fix: `run "ptc-mcp init" or copy ${CONFIG_EXAMPLE_FILE} to ${loaded.searched.at(-1) ?? '~/.config/ptc-mcp/config.yaml'}`,
  }
}

function checkNode(): Omit<CheckResult, 'id' | 'ms' | 'title'> {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])
  return ok
    ? {status: 'pass', detail: `v${process.versions.node}`}
    : {status: 'fail', detail: `v${process.versions.node} is too old`, fix: 'install Node.js 20.19 or newer'}
}

async function checkPython(python: Promise<PythonInfo>): Promise<Omit<CheckResult, 'id' | 'ms' | 'title'>> {
  const info = await python
  return {status: 'pass', detail: `Python ${info.version} at ${info.executable}`}
}

const NAMESPACES_FIX =
  'this host gives programs no namespaces of their own (user namespaces off, capped or used up), so programs run in Landlock + seccomp alone with their scratch on the disk: allow them (sysctl -w user.max_user_namespaces=15000; kernel.unprivileged_userns_clone=1 where that exists; kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04+), or in a container run with user namespaces allowed'

async function checkSandbox(
  python: Promise<PythonInfo>,
  config: Config | undefined,
  logger: Logger,
  signal: AbortSignal | undefined,
): Promise<Omit<CheckResult, 'id' | 'ms' | 'title'>> {
  const setting = config?.execution.sandbox ?? 'auto'
  const found = await python.then(
    (info) => info,
    () => null,
  )
  // The Python check says why and how to fix it; saying it again here would be noise.
  if (!found)
    return {status: 'fail', detail: 'not probed: the probe runs a Python program (see the Python check)'}
  const probe = await probeSandbox(found, setting, logger, signal)
  const escapes = probe.attempts.filter((a) => !a.refused).map((a) => a.name)
  if (!probe.controlWorked) {
    return {status: 'fail', detail: `${probe.tier}: a program that must work failed: ${probe.controlError}`}
  }
  if (probe.tier === 'none') {
    return {
      status: 'warn',
      detail: `sandbox: none — programs run without OS isolation (${escapes.join(', ') || 'nothing'} allowed)`,
      fix: 'set execution.sandbox: auto to isolate programs',
    }
  }
  if (escapes.length > 0) {
    return {
      status: 'fail',
      detail: `${probe.tier}: not refused: ${escapes.join(', ')}`,
      fix: 'report this: the sandbox did not hold',
    }
  }
  const refused = probe.attempts.map((a) => a.name).join(', ')
  const bounds = probe.bounds
    ? `; per program: threads ${probe.bounds.threads}, memory ${probe.bounds.memory}, scratch ${probe.bounds.scratch}`
    : ''
  const detail = `${probe.tier}: refused ${refused}; a normal program runs${bounds}`
  // Programs run (Landlock + seccomp), with weaker bounds: the scratch on the host's disk, no bwrap.
  if (/\(no (user )?namespaces\b/.test(probe.tier)) return {status: 'warn', detail, fix: NAMESPACES_FIX}
  return {status: 'pass', detail}
}

async function checkServer(
  registry: ToolRegistry,
  server: ServerConfig,
): Promise<Omit<CheckResult, 'id' | 'ms' | 'title'>> {
  const started = performance.now()
  const status = await registry.firstAttempt(server.name)
  const ms = Math.round(performance.now() - started)
  if (status?.connected) {
    const detail = `${status.transport}, ${counted(status.tools, 'tool')}, connected in ${ms} ms`
    const signIn = server.transport === 'stdio' ? undefined : await signInDetail(server)
    return {status: 'pass', detail: signIn ? `${detail}; ${signIn}` : detail}
  }
  const error = status?.lastError ?? 'no answer'
  return {
    status: 'fail',
    detail: `${status?.transport ?? ''} ${error}`.trim(),
    fix: registry.connectFailure(server.name)?.fix ?? GENERIC_FIX,
  }
}

/** "signed in, expires ..." for a connected server that signed in with OAuth (SPEC §13). */
async function signInDetail(server: Extract<ServerConfig, {url: string}>): Promise<string | undefined> {
  const record = await new TokenStore().read(server.url)
  if (!record && !server.oauth) return undefined
  return describeStateLine(describeState(server, record))
}

/** Every allow/block pattern should match a tool: a misspelt block rule hides nothing (SPEC §4). */
async function checkToolRules(registry: ToolRegistry): Promise<Omit<CheckResult, 'id' | 'ms' | 'title'>> {
  await Promise.all(registry.serverStatus().map((server) => registry.firstAttempt(server.name)))
  const unmatched = registry.unmatchedRules()
  const hidden = registry.hiddenTools().length
  if (unmatched.length === 0)
    return {status: 'pass', detail: `every pattern matches a tool; ${counted(hidden, 'tool')} hidden`}
  return {
    status: 'warn',
    detail: unmatched.map((rule) => rule.message).join('; '),
    fix: 'write each pattern as "ptc-mcp list" names the tool (mcp__<server>__<tool>), or remove it',
  }
}

/**
 * Every Claude Code settings file in force (managed ones first), how many MCP rules each holds, and
 * the rules Claude Code itself skips (SPEC §12).
 */
function checkPermissions(
  policy: PermissionPolicy,
  config: Config,
): Omit<CheckResult, 'id' | 'ms' | 'title'> {
  const unlisted = askUnlisted(config.permissions)
  const asks = `calls no rule covers ${unlisted === false ? 'run without asking' : 'ask'} (ask_unlisted: ${String(unlisted)})`
  if (!config.permissions.claude_code)
    return {
      status: 'pass',
      detail: `permissions.claude_code is off: Claude Code's rules are not read; ${asks}`,
    }
  const states = policy.settingsStates()
  const inForce = states.filter((s) => s.state !== 'absent')
  const files = inForce.map(
    (s) =>
      `${s.scope} ${s.file} (${counted(s.rules, 'MCP rule')}${s.state === 'read' ? '' : `, ${s.state === 'ignored' ? 'ignored: managed settings allow only managed rules' : 'not valid JSON'}`})`,
  )
  const read =
    files.length > 0 ? `settings in force: ${files.join('; ')}` : 'no Claude Code settings file exists'
  const problems = [
    ...policy.rejectedRules().map((rule) => rejectedLine(rule)),
    ...inForce.filter((s) => s.state === 'invalid').map((s) => `${s.file} is not valid JSON`),
  ]
  if (problems.length === 0) return {status: 'pass', detail: `${read}; ${asks}`}
  return {
    status: 'warn',
    detail: `${read}; ${problems.join('; ')}`,
    fix: 'fix or remove each rule named (Claude Code skips it too), as "mcp__<server>", "mcp__<server>__*" or "mcp__<server>__<tool glob>"',
  }
}
