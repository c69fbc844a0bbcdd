import {createHash, timingSafeEqual} from 'node:crypto'

import type {GatewayConfig} from '../config/schema.js'
import type {Logger} from '../shared/log.js'

import {expandString} from '../config/expand.js'
import {PtcError} from '../shared/errors.js'
import {JwtAuth, KEYS_RETRY_SECONDS} from './oauth.js'

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

/**
 * Who a request comes from, why it is refused (`refused` undefined: it presented no token), or why
 * its token could not be checked (`unavailable`: the issuer's keys could not be read).
 */
export type Authentication = {principal: string} | {refused?: string} | {unavailable: string}

/**
 * Who may call the gateway (SPEC §18): bearer tokens of gateway.auth.bearer, and, with
 * gateway.auth.oauth, JWT access tokens of the issuer. A token of neither is refused.
 */
export class GatewayAuth {
  private constructor(
    private readonly bearer: BearerAuth,
    /** Set with gateway.auth.oauth. */
    readonly jwt: JwtAuth | undefined,
  ) {}

  static fromConfig(
    auth: GatewayConfig['auth'],
    env: NodeJS.ProcessEnv = process.env,
    logger?: Logger,
  ): GatewayAuth {
    return new GatewayAuth(BearerAuth.fromConfig(auth, env), auth.oauth && new JwtAuth(auth.oauth, logger))
  }

  /** Whether any authentication is configured: without it, only loopback may listen. */
  get configured(): boolean {
    return this.bearer.configured || this.jwt !== undefined
  }

  async authenticate(authorization?: null | string): Promise<Authentication> {
    if (authorization === undefined || authorization === null) return {}
    const principal = this.bearer.principalOf(authorization)
    if (principal !== undefined) return {principal}
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]
    if (token === undefined) return {refused: 'the Authorization header is not "Bearer <token>"'}
    if (this.jwt && JwtAuth.looksLikeJwt(token)) return this.jwt.principalOf(token)
    return {
      refused: this.jwt
        ? 'the token is neither a bearer token of gateway.auth.bearer nor a JWT'
        : 'the bearer token is not one of gateway.auth.bearer',
    }
  }

  /**
   * The 401 answer: nothing ran. With OAuth, `WWW-Authenticate` names the metadata a sign-in starts
   * from. A token that could not be checked is answered 503 with `Retry-After`: it may be fine.
   */
  refuse(refused: Authentication): Response {
    if ('unavailable' in refused) {
      const text = `${refused.unavailable}, so the token could not be checked (it may be fine): retry in ${KEYS_RETRY_SECONDS} s, or ask the gateway's operator: nothing ran`
      return Response.json(
        {jsonrpc: '2.0', id: null, error: {code: -32_000, message: text}},
        {status: 503, headers: {'Retry-After': String(KEYS_RETRY_SECONDS)}},
      )
    }
    const why = 'refused' in refused ? refused.refused : undefined
    const params = [`realm="${REALM}"`]
    if (this.jwt) params.push(`resource_metadata="${this.jwt.metadataUrl}"`)
    if (why !== undefined)
      params.push('error="invalid_token"', `error_description="${why.replaceAll('"', "'")}"`)
    const text =
      why === undefined
        ? `this gateway requires Authorization: Bearer <token>${this.jwt ? ' (sign in with the issuer named in the resource metadata)' : ''}: nothing ran`
        : `${why}: nothing ran`
    return Response.json(
      {jsonrpc: '2.0', id: null, error: {code: -32_001, message: text}},
      {status: 401, headers: {'WWW-Authenticate': `Bearer ${params.join(', ')}`}},
    )
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Whether `host` is a loopback address or name (listening there needs no authentication). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}
