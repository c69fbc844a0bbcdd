/**
 * Finding, reading and validating config.yaml (SPEC §3). Every problem in a file is reported at once,
 * in one ConfigError: `${VAR}` expansion runs first, so values are validated as they will be used,
 * and its errors are merged with the schema's.
 */
import {readFile, stat} from 'node:fs/promises'
import {basename, dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {LineCounter, parseDocument} from 'yaml'
import {z} from 'zod'

import {levenshtein} from '../downstream/naming.js'
import {ConfigError} from '../errors.js'
import {
  CONFIG_ENV_VARIABLE,
  CONFIG_FILE_NAME,
  type ConfigLookup,
  findConfig,
  type FoundConfig,
} from './discover.js'
import {type Environment, expandConfig} from './expand.js'
import {resolveServerPaths} from './relative-paths.js'
import {type Config, type ConfigIssue, configSchema, type ServerConfig, TRANSPORTS} from './schema.js'

export interface LoadedConfig extends FoundConfig {
  config: Config
  /** Problems that did not stop loading (a skipped self-launching server, YAML warnings). */
  warnings: string[]
  /** The values `${VAR}` references took: the downstream layer redacts them (SPEC §15). */
  secrets: string[]
}

const SUGGESTION = 'Fix these entries in the file; config.schema.json lets an editor check it as you type.'

export {type ConfigLookup, type ConfigSource, findConfig, type FoundConfig} from './discover.js'

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

/** The YAML document as plain data (an empty document is `{}`), with its warnings. Throws a ConfigError on bad syntax. */
export function parseYaml(text: string, path: string | null): {raw: unknown; warnings: string[]} {
  const where = path === null ? 'config' : path
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, {prettyErrors: false, lineCounter, uniqueKeys: true})
  const at = (offset: number | undefined) => {
    const {line, col} = lineCounter.linePos(offset ?? 0)
    return `line ${line}, column ${col}`
  }

  const describe = (error: {code: string; message: string; pos: [number, number]}) =>
    `${at(error.pos[0])}: ${error.code === 'MULTIPLE_DOCS' ? 'the file holds several YAML documents ("---"); keep one' : error.message}`
  if (doc.errors.length > 0) {
    throw new ConfigError(
      `Invalid YAML in ${where}:\n${doc.errors.map((e) => `  ${describe(e)}`).join('\n')}`,
      {
        suggestion:
          'Fix the YAML syntax at the lines shown (indentation with spaces, matching brackets and quotes).',
      },
    )
  }

  let raw: unknown
  try {
    raw = doc.toJS({maxAliasCount: 1000})
  } catch (error) {
    throw new ConfigError(`Invalid YAML in ${where}: ${(error as Error).message}`, {
      suggestion: 'Check the anchors (&name) and aliases (*name) in the file.',
      cause: error,
    })
  }

  return {raw: raw ?? {}, warnings: doc.warnings.map((w) => `${where}: ${describe(w)}`)}
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
  const servers = data.servers.filter((server, index) => {
    if (!launchesSelf(server)) return true
    warnings.push(
      `servers[${index}] "${server.name}" skipped: it would launch ptc-mcp itself ("ptc-mcp serve"), which would start it again, and so on`,
    )
    return false
  })
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

/** One ConfigError listing every issue, with the usual fix. */
export function configIssuesError(issues: readonly ConfigIssue[], path: string | null): ConfigError {
  return new ConfigError(formatIssues(issues, path), {suggestion: SUGGESTION})
}

const SECTIONS = Object.keys(configSchema.shape)

/**
 * The message of a config error: the file, then one `path: message` line per issue, ordered as the
 * file is (servers, then tools, then execution; servers by index).
 */
export function formatIssues(issues: readonly ConfigIssue[], path: string | null): string {
  const rank = (issue: ConfigIssue): [number, number] => {
    const [section, index] = issue.path
    // The root first, then the sections in the order of the schema (unknown ones last).
    const order = section === undefined ? -1 : SECTIONS.indexOf(String(section))
    return [
      order === -1 && section !== undefined ? SECTIONS.length : order,
      typeof index === 'number' ? index : -1,
    ]
  }

  const sorted = issues
    .map((issue, position) => ({issue, position, rank: rank(issue)}))
    .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.position - b.position)
  const lines = sorted.map(({issue}) => `  ${formatPath(issue.path)}: ${issue.message}`)
  return [`Invalid config${path === null ? '' : ` ${path}`}:`, ...lines].join('\n')
}

/** `['servers', 1, 'headers', 'X-Key']` → `servers[1].headers.X-Key`; the root is `(top level)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else if (typeof key === 'string' && /^[A-Za-z_][\w-]*$/.test(key)) out += out === '' ? key : `.${key}`
    else out += `[${JSON.stringify(String(key))}]`
  }

  return out === '' ? '(top level)' : out
}

/**
 * Zod issues as readable messages (zod's own are written for developers). Issues must come from a
 * parse with `reportInput: true`; input is used to describe what was found, never quoted unless it
 * is a short word from the file itself (an unknown transport or option).
 */
export function toConfigIssues(issues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  // A misspelt key also leaves the real one missing: "did you mean" says both, so skip the "missing".
  const suggested = new Set<string>()
  const converted = issues.flatMap((issue): (ConfigIssue & {missing?: boolean})[] => {
    const {path} = issue
    switch (issue.code) {
      case 'invalid_type': {
        return [{path, message: invalidType(issue.expected, issue.input), missing: issue.input === undefined}]
      }

      case 'invalid_union': {
        if (issue.discriminator === undefined) return [{path, message: 'does not match any allowed form'}]
        const value = isRecord(issue.input) ? issue.input[issue.discriminator] : undefined
        return [{path, message: unknownTransport(value)}]
      }

      case 'invalid_value': {
        const found = typeof issue.input === 'string' && issue.input.length <= 40 ? `"${issue.input}"; ` : ''
        return [
          {
            path,
            message: `${found ? `unknown value ${found}` : ''}expected ${listOr(issue.values.map(String))}`,
          },
        ]
      }

      case 'too_big': {
        return [{path, message: `must be ${issue.inclusive === false ? '<' : '<='} ${issue.maximum}`}]
      }

      case 'too_small': {
        return [{path, message: tooSmall(issue.origin, Number(issue.minimum), issue.inclusive ?? true)}]
      }

      case 'unrecognized_keys': {
        return issue.keys.map((key) => {
          const {message, suggestion} = unknownKey(key, path, issue.input)
          if (suggestion !== undefined) suggested.add(formatPath([...path, suggestion]))
          return {path: [...path, key], message}
        })
      }

      default: {
        return [{path, message: issue.message}]
      }
    }
  })
  return converted
    .filter((issue) => !(issue.missing && suggested.has(formatPath(issue.path))))
    .map(({path, message}) => ({path, message}))
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Keys people bring from other tools' configs (Claude's .mcp.json uses `type` and `mcpServers`). */
const KEY_HINTS: Record<string, string> = {
  type: 'transport',
  mcpServers: 'servers',
  environment: 'env',
  cmd: 'command',
}

function unknownKey(
  key: string,
  path: readonly PropertyKey[],
  input: unknown,
): {message: string; suggestion?: string} {
  const {known, elsewhere} = keysAt(path, input)
  const hint = KEY_HINTS[key]
  if (hint !== undefined && known.includes(hint)) {
    return {message: `unknown key (did you mean "${hint}"?)`, suggestion: hint}
  }

  const owners = elsewhere.filter((other) => other.keys.includes(key)).map((other) => other.label)
  if (owners.length > 0) {
    const transport = isRecord(input) && typeof input.transport === 'string' ? input.transport : 'stdio'
    return {
      message: `unknown key for a ${transport} server (${key} is for ${listOr(owners)} servers: is transport set?)`,
    }
  }

  const close = known
    .map((candidate) => ({candidate, distance: levenshtein(key.toLowerCase(), candidate.toLowerCase())}))
    .filter(
      ({candidate, distance}) =>
        distance <= Math.max(1, Math.floor(key.length / 3)) || (key.length >= 4 && candidate.startsWith(key)),
    )
    .sort((a, b) => a.distance - b.distance)
  const best = close[0]?.candidate
  return best === undefined
    ? {message: `unknown key (expected one of ${known.join(', ')})`}
    : {message: `unknown key (did you mean "${best}"?)`, suggestion: best}
}

type AnySchema = z.core.$ZodType
interface SchemaDef {
  type: string
  innerType?: AnySchema
  in?: AnySchema
  element?: AnySchema
  shape?: Record<string, AnySchema>
  options?: AnySchema[]
  discriminator?: string
}

const defOf = (schema: AnySchema) => schema._zod.def as unknown as SchemaDef

/** Strips wrappers (default, nullable, optional, the input side of a transform) down to the real type. */
function unwrap(schema: AnySchema): AnySchema {
  const def = defOf(schema)
  if (
    def.innerType &&
    ['catch', 'default', 'nullable', 'optional', 'prefault', 'readonly'].includes(def.type)
  ) {
    return unwrap(def.innerType)
  }

  if (def.type === 'pipe' && def.in) return unwrap(def.in)
  return schema
}

/**
 * The keys allowed in the object at `path` (the one an unknown key was found in), and for a
 * discriminated union (servers) the keys of its other forms, labelled by discriminator value.
 */
function keysAt(
  path: readonly PropertyKey[],
  input: unknown,
): {known: string[]; elsewhere: {label: string; keys: string[]}[]} {
  let schema: AnySchema | undefined = configSchema
  for (const key of path) {
    if (schema === undefined) break
    const def = defOf(unwrap(schema))
    if (def.type === 'array' && typeof key === 'number') schema = def.element
    else if (def.type === 'object' && typeof key === 'string') schema = def.shape?.[key]
    else schema = undefined
  }

  if (schema === undefined) return {known: [], elsewhere: []}
  const def = defOf(unwrap(schema))
  const shapeKeys = (option: AnySchema) => Object.keys(defOf(unwrap(option)).shape ?? {})
  if (def.type !== 'union' || !def.options || def.discriminator === undefined) {
    return {known: shapeKeys(schema), elsewhere: []}
  }

  const {discriminator} = def
  const value = isRecord(input) ? input[discriminator] : undefined
  const matches = (option: AnySchema) => {
    const property = defOf(unwrap(option)).shape?.[discriminator]
    return property !== undefined && z.safeParse(property, value).success
  }

  const chosen = def.options.find((option) => matches(option))
  const labelOf = (option: AnySchema) => {
    const {values} = unwrap(defOf(unwrap(option)).shape?.[discriminator] ?? option)._zod
    return values ? [...values].map(String).join('/') : '?'
  }

  return {
    known: chosen ? shapeKeys(chosen) : [...new Set(def.options.flatMap((option) => shapeKeys(option)))],
    elsewhere: chosen
      ? def.options.filter((o) => o !== chosen).map((o) => ({label: labelOf(o), keys: shapeKeys(o)}))
      : [],
  }
}

function unknownTransport(value: unknown): string {
  const expected = listOr([...TRANSPORTS])
  if (typeof value !== 'string') return `expected ${expected}`
  const lower = value.toLowerCase()
  const guess = TRANSPORTS.find((t) => lower === t || (t === 'http' && /streamable|^https?$/.test(lower)))
  const shown = value.length <= 40 ? ` "${value}"` : ''
  return `unknown transport${shown}; expected ${expected}${guess ? ` (did you mean "${guess}"?)` : ''}`
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value lines)',
  record: 'a mapping (key: value lines)',
}

function invalidType(expected: string, input: unknown): string {
  if (input === undefined) return 'missing (required)'
  const wanted = EXPECTED[expected] ?? expected
  if (expected === 'int' && typeof input === 'number') return `expected ${wanted}`
  const found = input === null ? 'nothing (null)' : (FOUND[kindOf(input)] ?? `a ${kindOf(input)}`)
  const quote =
    expected === 'string' && (typeof input === 'number' || typeof input === 'boolean')
      ? ' (put it in quotes)'
      : ''
  return `expected ${wanted}, got ${found}${quote}`
}

const FOUND: Record<string, string> = {array: 'a list', object: 'a mapping'}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array'
  return typeof value === 'object' ? 'object' : typeof value
}

function tooSmall(origin: string, minimum: number, inclusive: boolean): string {
  if (origin === 'string' && minimum <= 1) return 'must not be empty'
  if (origin === 'array') return `must have at least ${minimum} item${minimum === 1 ? '' : 's'}`
  return `must be ${inclusive ? '>=' : '>'} ${minimum}`
}

function listOr(values: readonly string[]): string {
  if (values.length <= 1) return values.join('')
  return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`
}

export async function readConfigFile(path: string): Promise<string> {
  try {
    if ((await stat(path)).isDirectory()) {
      throw new ConfigError(`Config path ${path} is a directory, not a file`, {
        suggestion: `Point --config or ${CONFIG_ENV_VARIABLE} at the YAML file itself (usually ${CONFIG_FILE_NAME}).`,
      })
    }

    return await readFile(path, 'utf8')
  } catch (error) {
    if (error instanceof ConfigError) throw error
    const {code} = error as NodeJS.ErrnoException
    const reasons: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      ENOENT: 'the file does not exist (a broken link?)',
    }
    const reason = (code && reasons[code]) ?? code ?? (error as Error).message
    throw new ConfigError(`Cannot read config ${path}: ${reason}`, {
      suggestion: 'Make the file readable by the user running ptc-mcp, or point --config at another one.',
      cause: error,
    })
  }
}

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const OWN_BINS = new Set([join(PACKAGE_ROOT, 'bin', 'dev.js'), join(PACKAGE_ROOT, 'bin', 'run.js')])

/**
 * Whether a server entry would start `ptc-mcp serve`: the `ptc-mcp` bin (also through npx, with a
 * version, or a path ending in it), or this package's bin/run.js, together with a `serve` argument.
 */
export function launchesSelf(server: ServerConfig): boolean {
  if (server.transport !== 'stdio') return false
  // A command run through a shell (`sh -c "ptc-mcp serve"`) hides the words in one argument.
  const words = [server.command, ...server.args].flatMap((token) => token.split(/\s+/)).filter(Boolean)
  if (!words.includes('serve')) return false
  const base = server.cwd ?? process.cwd()
  return words.some((word) => {
    const name = basename(word).replace(/\.(cmd|exe|js)$/, '')
    if (/^ptc-mcp(@.*)?$/.test(name)) return true
    if (/(^|[\\/])ptc-mcp[\\/]bin[\\/](run|dev)\.js$/.test(word)) return true
    return OWN_BINS.has(resolve(base, word))
  })
}
