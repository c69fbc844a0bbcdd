import type {ServerConfig} from '../config/schema.js'

import {isStdioServer, transportEntry} from '../config/transports.js'

/** A literal secret found in a converted server. The value itself is never kept. */
export interface SecretFinding {
  /** ptc-mcp server name. */
  server: string
  /** Where it is: `env.GITHUB_TOKEN`, `headers.Authorization`, `args[3]`, `url?api_key`. */
  field: string
  /** The variable that holds it once referenced (`GITHUB_TOKEN`), or that would with env refs. */
  variable: string
  /** True when the config has `${variable}` in its place, false when the literal was copied. */
  replaced: boolean
}

export interface VariableUse {
  name: string
  /** Servers whose config references it. */
  servers: string[]
}

/**
 * Words in a key that mark its value as a credential: `API_KEY`, `GITHUB_PERSONAL_ACCESS_TOKEN`,
 * `X-Api-Key`, `Authorization`, `DB_PASSWORD`, `clientSecret`. Bare `KEY` suffixes are limited to
 * known kinds so `MONKEY` or `HOTKEY` are not taken for one.
 */
const SECRET_WORD =
  /^(?:(?:API|ACCESS|SECRET|PRIVATE|MASTER|SIGNING|ENCRYPTION|LICENSE|AUTH)?KEY|\w*TOKEN|\w*SECRET|\w*PASSWORD|PASSWD|PASS|PASSPHRASE|AUTH|AUTHORIZATION|CREDENTIALS?|PAT|COOKIE)$/

/** A last word that says the value is about a secret, not the secret: `AUTH_URL`, `KEY_FILE`. */
const NOT_SECRET_LAST_WORD = new Set(
  (
    'DIR DISABLED DOMAIN ENABLED ENDPOINT EXPIRES EXPIRY FILE HEADER HOST ID LENGTH METHOD MODE NAME PATH ' +
    'PORT PROVIDER REGION SCOPE SCOPES SERVER TIMEOUT TYPE URI URL USER USERNAME'
  ).split(' '),
)

/** Values that are credentials whatever their key: auth schemes and well-known token prefixes. */
const SCHEME = /^(Bearer|Token|Basic)\s+(\S.*)$/i
const TOKEN_PREFIX =
  /^(?:gh[pousr]_|github_pat_|glpat-|sk-|sk_(?:live|test)_|rk_live_|xox[abprs]-|AKIA[0-9A-Z]{16}$)/

/** Values too plain to be a secret: flags and small numbers (`USE_AUTH: "1"`). */
const PLAIN_VALUE = /^(?:true|false|yes|no|on|off|none|null|\d{1,5})$/i

/** `GITHUB_TOKEN` → [GITHUB, TOKEN]; `clientSecret` → [CLIENT, SECRET]; `X-API-Key` → [X, API, KEY]. */
function words(key: string): string[] {
  return key
    .replaceAll(/([a-z\d])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z\d]+/)
    .filter(Boolean)
}

export function isSecretKey(key: string): boolean {
  const parts = words(key)
  const last = parts.at(-1)
  if (last === undefined || NOT_SECRET_LAST_WORD.has(last)) return false
  return parts.some((word) => SECRET_WORD.test(word))
}

/** A value written out in full, as opposed to one that is or holds a `${VAR}` reference. */
export function isLiteral(value: string): boolean {
  return value.trim() !== '' && !/(?:^|[^$])\$\{/.test(value)
}

function isSecretValue(value: string): boolean {
  return SCHEME.test(value) || TOKEN_PREFIX.test(value)
}

function isSecret(key: string, value: string): boolean {
  if (!isLiteral(value) || PLAIN_VALUE.test(value.trim())) return false
  return isSecretKey(key) || isSecretValue(value)
}

/** `my-server` → `MY_SERVER`, a valid variable name (prefixed when it would start with a digit). */
function variablePart(text: string): string {
  const upper = words(text).join('_')
  return /^\d/.test(upper) ? `MCP_${upper}` : upper || 'MCP'
}

/**
 * Finds literal secrets in env values, header values, arguments (`--api-key=x`, `--token x`, known
 * token prefixes) and URL query parameters. With `envRefs`, each is replaced by a `${VAR}` reference
 * (`GITHUB_TOKEN: ${GITHUB_TOKEN}`, `Authorization: Bearer ${NOTION_TOKEN}`); one value met twice
 * under one variable name shares it, different values never do.
 */
export function protectSecrets(
  servers: readonly ServerConfig[],
  options: {envRefs: boolean},
): {servers: ServerConfig[]; secrets: SecretFinding[]} {
  // Variables the config already references hold values we do not know: never reuse their names.
  const claimed = new Map<string, string | null>(referencedVariables(servers).map((v) => [v.name, null]))
  const secrets: SecretFinding[] = []

  const reference = (server: ServerConfig, field: string, value: string, preferred: string[]): string => {
    const prefix = variablePart(server.name)
    // The name as in the source first (GITHUB_TOKEN), then with the server's (SEARCH_API_KEY), then numbered.
    const candidates = preferred.flatMap((name) =>
      name.startsWith(`${prefix}_`) ? [name] : [name, `${prefix}_${name}`],
    )
    const free = (name: string) => !claimed.has(name) || claimed.get(name) === value
    // One value met twice (an env var and a flag, one token for two servers) is one variable to export.
    let variable = [...claimed].find(([, known]) => known === value)?.[0] ?? candidates.find(free)
    for (let n = 2; variable === undefined; n++) {
      const name = `${candidates.at(-1) ?? `${prefix}_SECRET`}_${n}`
      if (free(name)) variable = name
    }
    claimed.set(variable, value)
    secrets.push({server: server.name, field, variable, replaced: options.envRefs})
    return options.envRefs ? `\${${variable}}` : value
  }

  const protectedServers = servers.map((server): ServerConfig => {
    if (isStdioServer(server)) {
      const env = Object.fromEntries(
        Object.entries(server.env).map(([key, value]) => [
          key,
          isSecret(key, value) ? reference(server, `env.${key}`, value, [variablePart(key)]) : value,
        ]),
      )
      const args = server.args.map((arg, index) =>
        protectArg(server.args, index, arg, (value, name) =>
          reference(server, `args[${index}]`, value, [name]),
        ),
      )
      return {...server, args, env}
    }
    const headers = Object.fromEntries(
      Object.entries(server.headers).map(([key, value]) => {
        if (!isSecret(key, value)) return [key, value]
        const scheme = SCHEME.exec(value)
        if (scheme) {
          const [, kind = '', credential = ''] = scheme
          const name = `${variablePart(server.name)}_${kind.toLowerCase() === 'basic' ? 'BASIC_AUTH' : 'TOKEN'}`
          const replaced = reference(server, `headers.${key}`, credential, [name])
          return [key, options.envRefs ? `${kind} ${replaced}` : value]
        }
        const name = variablePart(key).replace(/^X_/, '')
        return [key, reference(server, `headers.${key}`, value, [`${variablePart(server.name)}_${name}`])]
      }),
    )
    const url = protectQuery(server.url, (param, value) =>
      reference(server, `url?${param}`, value, [`${variablePart(server.name)}_${variablePart(param)}`]),
    )
    return {...server, url, headers}
  })
  return {servers: protectedServers, secrets}
}

/**
 * `--api-key=abc`: the part after `=`. `--token abc`: `abc`, after a secret-named flag. A known
 * token prefix anywhere. Returns the argument with the secret replaced by `replace`'s result.
 */
function protectArg(
  args: readonly string[],
  index: number,
  arg: string,
  replace: (value: string, name: string) => string,
): string {
  const inline = /^(--?[A-Za-z][\w-]*)=(.+)$/.exec(arg)
  if (inline) {
    const [, flag = '', value = ''] = inline
    if (isSecret(flag, value)) return `${flag}=${replace(value, variablePart(flag))}`
    return arg
  }
  const previous = index > 0 ? args[index - 1] : undefined
  if (
    previous !== undefined &&
    /^--?[A-Za-z][\w-]*$/.test(previous) &&
    isSecretKey(previous) &&
    isSecret(previous, arg)
  ) {
    return replace(arg, variablePart(previous))
  }
  if (isLiteral(arg) && TOKEN_PREFIX.test(arg)) return replace(arg, 'TOKEN')
  return arg
}

/** Secret-named query parameters (`?api_key=...`), replaced in the URL text as written. */
function protectQuery(url: string, replace: (param: string, value: string) => string): string {
  const at = url.indexOf('?')
  if (at === -1) return url
  const hashAt = url.indexOf('#', at)
  const end = hashAt === -1 ? url.length : hashAt
  const query = url
    .slice(at + 1, end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq === -1) return pair
      const param = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      return isSecret(param, value) ? `${param}=${replace(param, value)}` : pair
    })
    .join('&')
  return `${url.slice(0, at + 1)}${query}${url.slice(end)}`
}

/** Where a server's values may hold `${VAR}` (the fields ptc-mcp expands). */
function expandedValues(server: ServerConfig): string[] {
  return transportEntry(server).expandable(server)
}

/**
 * The variables ptc-mcp will need in its environment: every `${VAR}` without a default (a `$${`
 * escape is not a reference), with the servers using each, sorted by name.
 */
export function referencedVariables(servers: readonly ServerConfig[]): VariableUse[] {
  const uses = new Map<string, Set<string>>()
  for (const server of servers) {
    for (const value of expandedValues(server)) {
      for (const match of value.matchAll(/(\$?)\$\{([A-Za-z_]\w*)(:-[^}]*)?\}/g)) {
        const [, escaped, name = '', fallback] = match
        if (escaped || fallback !== undefined) continue
        const names = uses.get(name) ?? new Set<string>()
        names.add(server.name)
        uses.set(name, names)
      }
    }
  }
  return [...uses]
    .sort(([a], [b]) => a.localeCompare(b, 'en'))
    .map(([name, names]) => ({name, servers: [...names]}))
}
