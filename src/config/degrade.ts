/**
 * The config as `serve` takes it (SPEC §3): `serve` never dies of a config problem. A problem
 * confined to one server entry (an unset variable, a bad URL) makes that server unusable, with the
 * reason, and the others run; a file that cannot be used at all (YAML syntax, wrong shape, a bad
 * `execution` value) leaves no servers and the error to answer every call with.
 */

import {ConfigError} from '../shared/errors.js'
import {isRecord} from '../shared/guards.js'
import {type ConfigLookup, findConfig, type FoundConfig} from './discover.js'
import {configIssuesError, formatPath} from './issues.js'
import {checkConfig, type LoadedConfig, validateConfig, withResolvedPaths} from './load.js'
import {parseYaml, readConfigFile} from './read.js'
import {
  type ConfigIssue,
  configSchema,
  DEFAULT_TRANSPORT,
  TRANSPORT_KINDS,
  type TransportKind,
} from './schema.js'

/** A server entry that cannot be used as written: listed as unavailable, with why. */
export interface UnusableServer {
  /** Its name, or `servers[N]` when the entry has no usable name. */
  name: string
  transport: TransportKind
  reason: string
}

export interface DegradedConfig extends LoadedConfig {
  /** Entries left out, each with the problem and its fix. */
  unusable: UnusableServer[]
  /** Why the file cannot be used at all (then `config` is the defaults, without servers), else null. */
  error: ConfigError | null
}

/** Loads the config for `serve`: never throws for the config's own problems. */
export async function loadConfigLeniently(options: ConfigLookup = {}): Promise<DegradedConfig> {
  const env = options.env ?? process.env
  const defaults = configSchema.parse({})
  const unusableFile = (found: FoundConfig, error: unknown): DegradedConfig => {
    if (!(error instanceof ConfigError)) throw error
    return {...found, config: defaults, warnings: [], secrets: [], unusable: [], error}
  }

  let found: FoundConfig
  try {
    found = findConfig(options)
  } catch (error) {
    return unusableFile({path: null, searched: [], source: null}, error)
  }

  const {path} = found
  if (path === null) return {...found, config: defaults, warnings: [], secrets: [], unusable: [], error: null}
  let parsed: ReturnType<typeof parseYaml>
  try {
    parsed = parseYaml(await readConfigFile(path), path)
  } catch (error) {
    return unusableFile(found, error)
  }

  const {raw, warnings: yamlWarnings} = parsed

  // The secrets of every entry, usable or not, so none can slip out through a reason.
  const {issues, secrets} = checkConfig(raw, env)
  const perServer = new Map<number, ConfigIssue[]>()
  const elsewhere: ConfigIssue[] = []
  const inGateway: ConfigIssue[] = []
  for (const issue of issues) {
    const [section, index] = issue.path
    if (section === 'servers' && typeof index === 'number')
      perServer.set(index, [...(perServer.get(index) ?? []), issue])
    else if (section === 'gateway' && issue.path.length > 1) inGateway.push(issue)
    else elsewhere.push(issue)
  }

  if (elsewhere.length > 0) return unusableFile(found, configIssuesError(issues, path))
  // No issue outside server entries: the file is a mapping, and `servers` a list when present.
  const file = isRecord(raw) ? raw : {}
  const entries = Array.isArray(file.servers) ? (file.servers as unknown[]) : []
  const usable: Record<string, unknown> = {
    ...file,
    servers: entries.filter((_, index) => !perServer.has(index)),
  }
  // Only `serve --http` reads the gateway section (and loads the config strictly): here, a problem
  // in it (e.g. a variable set only where the gateway runs) leaves it out, with a warning.
  if (inGateway.length > 0) delete usable.gateway
  const gatewayWarnings = inGateway.map(
    (issue) => `${formatPath(issue.path)}: ${issue.message} (the gateway section is ignored here)`,
  )
  let validated: ReturnType<typeof validateConfig>
  try {
    validated = validateConfig(usable, {path, env})
  } catch (error) {
    return unusableFile(found, error)
  }

  const kept = new Set(validated.config.servers.map((server) => server.name))
  const unusable: UnusableServer[] = []
  const warnings = [...yamlWarnings, ...gatewayWarnings, ...validated.warnings]
  for (const [index, problems] of perServer) {
    const server = describeEntry(entries[index], index, problems, path)
    // A duplicate of a kept name is not listed as a second server of that name: the log says it.
    if (kept.has(server.name)) warnings.push(`servers[${index}] left out: ${server.reason}`)
    else unusable.push(server)
  }

  return {
    ...found,
    config: withResolvedPaths(validated.config, path),
    warnings,
    secrets,
    unusable,
    error: null,
  }
}

/** The problems of one entry, as the reason its server is unavailable. */
function describeEntry(entry: unknown, index: number, problems: ConfigIssue[], path: string): UnusableServer {
  const record = isRecord(entry) ? entry : {}
  const name =
    typeof record.name === 'string' && /^[\w-]+$/.test(record.name) ? record.name : `servers[${index}]`
  const transport = TRANSPORT_KINDS.find((t) => t === record.transport) ?? DEFAULT_TRANSPORT
  const lines = problems.map((problem) => `${formatPath(problem.path)}: ${problem.message}`)
  return {name, transport, reason: `invalid config entry (${lines.join('; ')}); fix it in ${path}`}
}
