/**
 * Loading config.yaml (SPEC §3): found (discover.ts), read and parsed (read.ts), then `${VAR}`
 * expanded (expand.ts) and validated, so values are validated as they will be used. Every problem
 * in a file is reported at once, in one ConfigError (issues.ts): expansion's and the schema's.
 */
import {dirname} from 'node:path'

import {type ConfigLookup, findConfig, type FoundConfig} from './discover.js'
import {type Environment, expandConfig} from './expand.js'
import {configIssuesError, formatPath, toConfigIssues} from './issues.js'
import {parseYaml, readConfigFile} from './read.js'
import {resolveServerPaths} from './relative-paths.js'
import {type Config, type ConfigIssue, configSchema} from './schema.js'
import {launchesSelf} from './self-launch.js'

export interface LoadedConfig extends FoundConfig {
  config: Config
  /** Problems that did not stop loading (a skipped self-launching server, YAML warnings). */
  warnings: string[]
  /** The values `${VAR}` references took: the downstream layer redacts them (SPEC §15). */
  secrets: string[]
}

/**
 * Finds, reads, expands and validates the config, then resolves the servers' relative paths
 * against the file's directory. Throws one ConfigError listing every problem.
 */
export async function loadConfig(options: ConfigLookup = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env
  const found = findConfig(options)
  if (found.path === null) return {...found, config: configSchema.parse({}), warnings: [], secrets: []}
  const text = await readConfigFile(found.path)
  const {config, warnings, secrets} = parseConfigText(text, {path: found.path, env})
  return {...found, config: withResolvedPaths(config, found.path), warnings, secrets}
}

/** The config with each server's relative paths taken from the config file's directory. */
export function withResolvedPaths(config: Config, path: string): Config {
  const base = dirname(path)
  return {...config, servers: config.servers.map((server) => resolveServerPaths(server, base))}
}

/** Parses YAML text (an empty document is an empty config), then validates it as {@link validateConfig}. */
export function parseConfigText(
  text: string,
  options: {path?: string | null; env?: Environment} = {},
): {config: Config; warnings: string[]; secrets: string[]} {
  const {raw, warnings} = parseYaml(text, options.path ?? null)
  const validated = validateConfig(raw, options)
  return {...validated, warnings: [...warnings, ...validated.warnings]}
}

/**
 * Expands `${VAR}` in server fields, validates the result, and drops servers that would launch
 * ptc-mcp itself (with a warning). Throws one ConfigError with every expansion and schema problem.
 */
export function validateConfig(
  raw: unknown,
  options: {path?: string | null; env?: Environment} = {},
): {config: Config; warnings: string[]; secrets: string[]} {
  const {issues, data, secrets} = checkConfig(raw, options.env ?? process.env)
  if (data === undefined || issues.length > 0) throw configIssuesError(issues, options.path ?? null)

  const warnings: string[] = []
  const {connect_timeout_seconds: connectTimeout} = data
  const servers = data.servers.flatMap((server, index) => {
    if (!launchesSelf(server))
      return connectTimeout === undefined || server.connect_timeout_seconds !== undefined
        ? [server]
        : [{...server, connect_timeout_seconds: connectTimeout}]
    warnings.push(
      `servers[${index}] "${server.name}" skipped: it would launch ptc-mcp itself ("ptc-mcp serve"), which would start it again, and so on`,
    )
    return []
  })
  const {ask_destructive: old, ask_unlisted: now} = data.permissions
  if (old !== undefined) {
    const readAs =
      now === undefined
        ? `read as ask_unlisted: ${old ? 'destructive' : 'false'}`
        : 'ignored: ask_unlisted is set'
    warnings.push(
      `permissions.ask_destructive is replaced by permissions.ask_unlisted (${readAs}); rename it in the config`,
    )
  }
  return {config: {...data, servers}, warnings, secrets}
}

/**
 * Every expansion and schema problem of a raw config, and the validated config when there are none;
 * `secrets` are the values `${VAR}` references took.
 */
export function checkConfig(
  raw: unknown,
  env: Environment,
): {issues: ConfigIssue[]; data?: Config; secrets: string[]} {
  const expanded = expandConfig(raw, env)
  const result = configSchema.safeParse(expanded.value, {reportInput: true})
  // A value with an unset variable is also malformed (e.g. not a URL): report the cause only.
  const expansionPaths = new Set(expanded.issues.map((issue) => formatPath(issue.path)))
  const schemaIssues = result.success
    ? []
    : toConfigIssues(result.error.issues).filter((issue) => !expansionPaths.has(formatPath(issue.path)))
  const issues = [...expanded.issues, ...schemaIssues]
  const {secrets} = expanded
  return result.success ? {issues, data: result.data, secrets} : {issues, secrets}
}
