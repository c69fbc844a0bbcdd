import {createHash, timingSafeEqual} from 'node:crypto'

import type {GatewayConfig} from '../config/schema.js'

import {expandString} from '../config/expand.js'
import {PtcError} from '../shared/errors.js'

/** Tokens shorter than this are refused at start: a guessable token is no authentication. */
export const MIN_TOKEN_CHARS = 16

/** The realm named in `WWW-Authenticate`. */
const REALM = 'ptc-mcp'

interface Principal {
  name: string
  digest: Buffer
}

/**
 * Bearer authentication of the gateway (SPEC §18): each token names one principal. Tokens come
 * from the environment (`${VAR}`), are held only as SHA-256 digests, compared in constant time
 * (every token is compared, whichever matches), and never logged.
 */
export class BearerAuth {
  private constructor(private readonly principals: readonly Principal[]) {}

  /** The configured tokens, expanded; throws PtcError naming what to fix (never a token's value). */
  static fromConfig(auth: GatewayConfig['auth'], env: NodeJS.ProcessEnv = process.env): BearerAuth {
    const seen = new Set<string>()
    const principals = auth.bearer.map(({principal, token}, index) => {
      const where = `gateway.auth.bearer[${index}] (${principal})`
      const expanded = expandString(token, env)
      if (expanded.unset.length > 0)
        throw new PtcError(
          'CONFIG_INVALID',
          `${where}: environment variable ${expanded.unset[0]} is not set; set it to the token`,
        )
      if (expanded.malformed.length > 0)
        throw new PtcError('CONFIG_INVALID', `${where}: ${expanded.malformed[0]}`)
      if (expanded.value.length < MIN_TOKEN_CHARS)
        throw new PtcError(
          'CONFIG_INVALID',
          `${where}: the token is shorter than ${MIN_TOKEN_CHARS} characters; use a random one (openssl rand -hex 32)`,
        )
      const digest = sha256(expanded.value)
      const key = digest.toString('hex')
      if (seen.has(key))
        throw new PtcError('CONFIG_INVALID', `${where}: the same token is given to another principal`)
      seen.add(key)
      return {name: principal, digest}
    })
    return new BearerAuth(principals)
  }

  /** Whether any token is configured: without one, only loopback may listen, and nobody is asked. */
  get configured(): boolean {
    return this.principals.length > 0
  }

  /** The principal the `Authorization` header names, or undefined (missing, malformed, unknown). */
  principalOf(authorization?: null | string): string | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')
    if (!match) return undefined
    const digest = sha256(match[1]!)
    let found: string | undefined
    for (const principal of this.principals) {
      if (timingSafeEqual(digest, principal.digest) && found === undefined) found = principal.name
    }
    return found
  }
}

/** The 401 answer: nothing ran. */
export function unauthorized(presented: boolean): Response {
  const error = presented ? ', error="invalid_token"' : ''
  const text = presented
    ? 'the bearer token is not one of gateway.auth.bearer: nothing ran'
    : 'this gateway requires Authorization: Bearer <token>: nothing ran'
  return Response.json(
    {jsonrpc: '2.0', id: null, error: {code: -32_001, message: text}},
    {status: 401, headers: {'WWW-Authenticate': `Bearer realm="${REALM}"${error}`}},
  )
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Whether `host` is a loopback address or name (listening there needs no authentication). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}
