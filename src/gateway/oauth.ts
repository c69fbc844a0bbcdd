import {getOAuthProtectedResourceMetadataUrl} from '@modelcontextprotocol/server'
import {createRemoteJWKSet, errors, type JWTPayload, jwtVerify} from 'jose'

import type {GatewayConfig} from '../config/schema.js'
import type {Logger} from '../shared/log.js'

/** The longest principal a token may name: state keys and logs stay small. */
const MAX_PRINCIPAL_CHARS = 256

/** The issuer's keys could not be fetched: the token was not checked. */
const KEYS_UNREADABLE = "the issuer's keys (jwks_uri) could not be read"

/** How soon a client may try again when the issuer's keys could not be read (`Retry-After`). */
export const KEYS_RETRY_SECONDS = 10

/** Clocks of the issuer and the gateway may differ by this much. */
const CLOCK_TOLERANCE_SECONDS = 30

type OAuthConfig = NonNullable<GatewayConfig['auth']['oauth']>

/** Why a token was refused: shown in the 401, never the token. */
export type TokenRefusal = {refused: string}

/** The token could not be checked (the issuer's keys are unreadable): it may be fine; a 503. */
export type KeysUnavailable = {unavailable: string}

/**
 * The gateway as an OAuth 2.1 resource server (SPEC §18): an access token is a JWT signed by one of
 * the issuer's keys (its JWKS, fetched and cached by jose), with the configured issuer, audience
 * and scopes, not expired; its principal is the configured claim. Publishes the protected-resource
 * metadata (RFC 9728) that a client's sign-in starts from.
 */
export class JwtAuth {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>
  /** Where the metadata is published, as clients reach it (the path-suffixed form of RFC 9728). */
  readonly metadataUrl: string

  constructor(
    private readonly config: OAuthConfig,
    private readonly logger?: Logger,
  ) {
    this.keys = createRemoteJWKSet(new URL(config.jwks_uri))
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(config.resource))
  }

  /** Whether a token looks like a JWT (three base64url parts): only those are checked here. */
  static looksLikeJwt(token: string): boolean {
    return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)
  }

  /** The token's principal, why it is refused, or that it could not be checked. */
  async principalOf(token: string): Promise<KeysUnavailable | TokenRefusal | {principal: string}> {
    const {config} = this
    let payload: JWTPayload
    try {
      const verified = await jwtVerify(token, this.keys, {
        issuer: config.issuer,
        audience: config.audience ?? config.resource,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      })
      payload = verified.payload
    } catch (error) {
      const refused = refusal(error)
      if (refused !== KEYS_UNREADABLE) return {refused}
      // The operator's problem, not the caller's: said where the operator looks.
      this.logger?.warn(
        `oauth: cannot read the issuer's keys at ${config.jwks_uri} (${reasonOf(error)}): requests with a JWT are answered 503 until it answers`,
      )
      return {unavailable: KEYS_UNREADABLE}
    }
    const missing = config.scopes.filter((scope) => !scopesOf(payload).includes(scope))
    if (missing.length > 0) return {refused: `the token lacks the scope ${missing.join(', ')}`}
    const principal = payload[config.principal_claim]
    if (typeof principal !== 'string' || principal.length === 0 || principal.length > MAX_PRINCIPAL_CHARS)
      return {
        refused: `the token's ${config.principal_claim} claim is not a name of at most ${MAX_PRINCIPAL_CHARS} characters`,
      }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001F\u007F]/.test(principal))
      return {refused: `the token's ${config.principal_claim} claim holds control characters`}
    return {principal}
  }

  /** The RFC 9728 document served at the `/.well-known/oauth-protected-resource` paths. */
  metadata(): Record<string, unknown> {
    const {config} = this
    return {
      resource: config.resource,
      authorization_servers: [config.issuer],
      bearer_methods_supported: ['header'],
      ...(config.scopes.length > 0 && {scopes_supported: config.scopes}),
      resource_name: 'ptc-mcp gateway',
    }
  }

  /** Whether `path` is where the metadata is published: the path-suffixed form, or the bare one. */
  servesMetadataAt(path: string): boolean {
    return path === new URL(this.metadataUrl).pathname || path === '/.well-known/oauth-protected-resource'
  }
}

/** `scope` (space-separated, RFC 9068) or `scp` (an array, as some issuers write it). */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean)
  const {scp} = payload
  if (Array.isArray(scp)) return scp.filter((scope): scope is string => typeof scope === 'string')
  return typeof scp === 'string' ? scp.split(' ').filter(Boolean) : []
}

/** What was wrong with the token, in words a person can act on. */
function refusal(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired: sign in again'
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token was issued for another audience'
    if (error.claim === 'iss') return 'the token was issued by another issuer'
    return `the token's ${error.claim} claim is not valid (${error.reason})`
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed)
    return "the token is not signed by one of the issuer's keys"
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    // jose's plain error for a JWKS answer that is not 200, or not JSON.
    (error.code === 'ERR_JOSE_GENERIC' && error.message.includes('JSON Web Key Set'))
  )
    return KEYS_UNREADABLE
  return 'the token is not a valid JWT access token'
}

/** Why the keys could not be read, as the operator can act on it: `fetch failed (ECONNREFUSED)`. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const {cause} = error as {cause?: {code?: unknown; message?: unknown}}
  const detail = cause?.code ?? cause?.message
  return typeof detail === 'string' ? `${error.message} (${detail})` : error.message
}
