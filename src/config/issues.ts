/**
 * Config problems as people read them: zod's issues phrased for the file's author (zod's own
 * messages are written for developers), and the one message listing them all, `path: message` a
 * line, in file order. Only the issues' public fields are read (code, path, expected, values, keys,
 * and the input, from a parse with `reportInput: true`).
 */
import type {z} from 'zod'

import {ConfigError} from '../shared/errors.js'
import {isRecord} from '../shared/guards.js'
import {levenshtein} from '../shared/naming.js'
import {CONFIG_SCHEMA_FILE} from '../shared/package-root.js'
import {keysAt} from './known-keys.js'
import {type ConfigIssue, configSchema, DEFAULT_TRANSPORT, TRANSPORT_KINDS, TRANSPORTS} from './schema.js'

const SUGGESTION = `Correct these entries in the file. For an editor to check it as you type, make its first line: # yaml-language-server: $schema=${CONFIG_SCHEMA_FILE}`

/** One ConfigError listing every issue, with the fix for the kinds of issue it holds. */
export function configIssuesError(issues: readonly ConfigIssue[], path: string | null): ConfigError {
  const unset = [...new Set(issues.flatMap((issue) => issue.unsetVariable ?? []))]
  const inFile = issues.some((issue) => issue.unsetVariable === undefined)
  const fixes = [...(unset.length > 0 ? [unsetFix(unset)] : []), ...(inFile ? [SUGGESTION] : [])]
  return new ConfigError(formatIssues(issues, path), {suggestion: fixes.join(' ')})
}

/** Variables are set where ptc-mcp starts: the shell, or Claude Code's registration of it. */
function unsetFix(names: readonly string[]): string {
  const first = names[0] ?? 'NAME'
  return `Set ${names.join(', ')} in the environment ptc-mcp starts in (the shell, or \`claude mcp add ... -e ${first}=...\` for Claude Code), or give a default in the file: \${${first}:-...}.`
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
 * Zod issues as readable messages. Issues must come from a parse with `reportInput: true`; input is
 * used to describe what was found, never quoted unless it is a short word from the file itself (an
 * unknown transport or option).
 */
export function toConfigIssues(issues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  // A misspelt key also leaves the real one missing: "did you mean" says both, so skip the "missing".
  const suggested = new Set<string>()
  const converted = issues.flatMap((issue): (ConfigIssue & {missing?: boolean})[] => {
    const {path} = issue
    switch (issue.code) {
      case 'invalid_type': {
        const message = invalidType(issue.expected, issue.input)
        // Claude's mcpServers shape (a mapping of name to server), brought over as it is.
        if (path.length === 1 && path[0] === 'servers' && issue.expected === 'array' && isRecord(issue.input))
          return [{path, message: `${message}: ${SERVERS_AS_LIST}`}]
        return [{path, message, missing: issue.input === undefined}]
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
        const bound = `must be ${issue.inclusive === false ? '<' : '<='} ${issue.maximum}`
        return [{path, message: isDuration(path) ? `${bound} (${TIMER_LIMIT})` : bound}]
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

/** A `*_seconds` key: its ceiling is what a timer can wait. */
const isDuration = (path: readonly PropertyKey[]) => String(path.at(-1)).endsWith('_seconds')

const TIMER_LIMIT = 'seconds: the longest a timer can wait, about 24.8 days'

const SERVERS_AS_LIST =
  'write each server as a list item ("- name: fs", then its command and args below it), or convert a Claude config with "ptc-mcp init --from FILE"'

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
    const transport =
      isRecord(input) && typeof input.transport === 'string' ? input.transport : DEFAULT_TRANSPORT
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

function unknownTransport(value: unknown): string {
  const expected = listOr([...TRANSPORT_KINDS])
  if (typeof value !== 'string') return `expected ${expected}`
  const lower = value.toLowerCase()
  const guess = TRANSPORT_KINDS.find((t) => lower === t || TRANSPORTS[t].alsoWritten?.test(lower))
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
