/**
 * `${VAR}` expansion in config values (SPEC §3).
 *
 * - `${VAR}` is the value of VAR; an unset VAR is an error (a set but empty one is the empty string).
 * - `${VAR:-default}` is the value of VAR, or `default` when VAR is unset or empty (as in the shell).
 *   The default is literal text up to the first `}`: it is not expanded itself.
 * - `$${` is a literal `${` (e.g. `$${HOME}` stays `${HOME}`). A `$` anywhere else is left alone, so
 *   bare `$VAR`, `$$` and `$1` pass through unchanged.
 * - VAR is letters, digits and `_`, not starting with a digit. Anything else inside `${...}`, or a
 *   `${` without its `}`, is an error rather than being passed on silently.
 *
 * Expanded: a server's `command`, `args`, `env` values, `cwd`, `url`, `headers` values and
 * `oauth.client_id` / `oauth.client_secret`; in the `gateway` section (SPEC §18), `store` and
 * `auth.oauth`'s `issuer`, `jwks_uri`, `resource` and `audience` (its bearer tokens are expanded
 * when the gateway starts, by gateway/auth.ts). Nothing else, and never keys. Values never appear in
 * messages, only variable names; the values that variables took are returned as `secrets`, for the
 * downstream layer's redaction (SPEC §15), except the gateway's OAuth URLs: public, and what the
 * operator's log must show.
 */
import type {ConfigIssue} from './schema.js'

import {isRecord} from '../shared/guards.js'

export type Environment = Readonly<Record<string, string | undefined>>

export interface ExpandedString {
  value: string
  /** Variables referenced without a default that are not set. */
  unset: string[]
  /** Why a `${...}` could not be read, one entry per bad reference. */
  malformed: string[]
  /** The values variables took (not defaults: those are written in the file). */
  substituted: string[]
}

const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([^]*))?$/

/** Expands one string. Unset variables are left as written in `value` and listed in `unset`. */
export function expandString(text: string, env: Environment = process.env): ExpandedString {
  const unset: string[] = []
  const malformed: string[] = []
  const substituted: string[] = []
  let value = ''
  let at = 0
  while (at < text.length) {
    const dollar = text.indexOf('$', at)
    if (dollar === -1) break
    value += text.slice(at, dollar)
    if (text.startsWith('$${', dollar)) {
      value += '${'
      at = dollar + 3
      continue
    }

    if (!text.startsWith('${', dollar)) {
      value += '$'
      at = dollar + 1
      continue
    }

    const close = text.indexOf('}', dollar + 2)
    if (close === -1) {
      malformed.push('"${" without a closing "}" (write $${ for a literal ${)')
      value += text.slice(dollar)
      at = text.length
      break
    }

    const reference = text.slice(dollar, close + 1)
    const match = VARIABLE.exec(text.slice(dollar + 2, close))
    at = close + 1
    if (!match) {
      malformed.push('a "${...}" that is not ${VAR} or ${VAR:-default} (write $${ for a literal ${)')
      value += reference
      continue
    }

    const [, name = '', fallback] = match
    const current = env[name]
    if (fallback !== undefined && (current === undefined || current === '')) {
      value += fallback
    } else if (current === undefined) {
      if (!unset.includes(name)) unset.push(name)
      value += reference
    } else {
      value += current
      substituted.push(current)
    }
  }

  value += text.slice(at)
  return {value, unset, malformed, substituted}
}

const STRING_FIELDS = new Set(['command', 'cwd', 'url'])
const MAP_FIELDS = new Set(['env', 'headers'])
const OAUTH_FIELDS = new Set(['client_id', 'client_secret'])

/**
 * Expands the fields of every server entry in a raw (not yet validated) config, returning a copy;
 * the input is not modified. Fields of the wrong type are left for the schema to report. Every
 * problem is collected, with its path, before returning.
 */
export function expandConfig(
  raw: unknown,
  env: Environment = process.env,
): {value: unknown; issues: ConfigIssue[]; secrets: string[]} {
  if (!isRecord(raw)) return {value: raw, issues: [], secrets: []}
  const issues: ConfigIssue[] = []
  const secrets = new Set<string>()
  const value = {...raw}
  if (Array.isArray(raw.servers)) value.servers = expandServers(raw.servers, env, issues, secrets)
  if (isRecord(raw.gateway)) value.gateway = expandGateway(raw.gateway, env, issues, secrets)
  return {value, issues, secrets: [...secrets]}
}

/** Expands one value at `path`, recording its problems (naming `label`) and the values variables took. */
function expandAt(
  text: unknown,
  path: PropertyKey[],
  label: string,
  context: {env: Environment; issues: ConfigIssue[]; secrets?: Set<string>},
): unknown {
  if (typeof text !== 'string') return text
  const result = expandString(text, context.env)
  for (const name of result.unset) {
    context.issues.push({
      path,
      unsetVariable: name,
      message: `environment variable ${name} is not set (${label}); set it, or give a default: \${${name}:-...}`,
    })
  }
  for (const problem of result.malformed) context.issues.push({path, message: `${problem} (${label})`})
  for (const secret of result.substituted) context.secrets?.add(secret)
  return result.value
}

const GATEWAY_OAUTH_FIELDS = new Set(['audience', 'issuer', 'jwks_uri', 'resource'])

/** The `gateway` section with `store` and the OAuth URLs expanded (a copy). */
function expandGateway(
  gateway: Record<string, unknown>,
  env: Environment,
  issues: ConfigIssue[],
  secrets: Set<string>,
): Record<string, unknown> {
  const value = {...gateway}
  if ('store' in gateway)
    value.store = expandAt(gateway.store, ['gateway', 'store'], 'gateway.store', {env, issues, secrets})
  const {auth} = gateway
  if (isRecord(auth) && isRecord(auth.oauth)) {
    const oauth = Object.entries(auth.oauth).map(([key, text]): [string, unknown] => [
      key,
      GATEWAY_OAUTH_FIELDS.has(key)
        ? expandAt(text, ['gateway', 'auth', 'oauth', key], 'gateway.auth.oauth', {env, issues})
        : text,
    ])
    value.auth = {...auth, oauth: Object.fromEntries(oauth)}
  }
  return value
}

function expandServers(
  entries: unknown[],
  env: Environment,
  issues: ConfigIssue[],
  secrets: Set<string>,
): unknown[] {
  return entries.map((server: unknown, index) => {
    if (!isRecord(server)) return server
    const label = typeof server.name === 'string' ? `server "${server.name}"` : `servers[${index}]`
    const expand = (text: unknown, path: PropertyKey[]): unknown =>
      expandAt(text, ['servers', index, ...path], label, {env, issues, secrets})

    // In the file's own order, so problems are reported as they appear.
    const expanded = Object.entries(server).map(([field, value]): [string, unknown] => {
      if (STRING_FIELDS.has(field)) return [field, expand(value, [field])]
      if (field === 'args' && Array.isArray(value))
        return [field, value.map((arg: unknown, i) => expand(arg, [field, i]))]
      if (MAP_FIELDS.has(field) && isRecord(value)) {
        return [
          field,
          Object.fromEntries(Object.entries(value).map(([key, text]) => [key, expand(text, [field, key])])),
        ]
      }

      if (field === 'oauth' && isRecord(value)) {
        return [
          field,
          Object.fromEntries(
            Object.entries(value).map(([key, text]) => [
              key,
              OAUTH_FIELDS.has(key) ? expand(text, [field, key]) : text,
            ]),
          ),
        ]
      }

      return [field, value]
    })
    return Object.fromEntries(expanded)
  })
}
