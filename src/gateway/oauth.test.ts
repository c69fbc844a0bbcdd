// @tier unit
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {JwtIssuer} from '../../test/helpers/jwt-issuer.js'
import {gatewaySchema} from '../config/schema.js'
import {silentLogger} from '../shared/log.js'
import {GatewayAuth} from './auth.js'

const RESOURCE = 'https://mcp.example.com/mcp'
let issuer: JwtIssuer
let auth: GatewayAuth

beforeAll(async () => {
  issuer = await JwtIssuer.start()
  const {auth: config} = gatewaySchema.parse({
    auth: {oauth: {issuer: issuer.url, jwks_uri: issuer.jwksUri, resource: RESOURCE, scopes: ['mcp']}},
  })
  auth = GatewayAuth.fromConfig(config, {})
})

afterAll(async () => {
  await issuer.close()
})

const bearer = (token: string) => `Bearer ${token}`

describe('GatewayAuth with gateway.auth.oauth (JWT access tokens)', () => {
  it('names the principal of a token the issuer signed for this resource, from its sub claim', async () => {
    const token = await issuer.token({sub: 'auth0|alice', aud: RESOURCE, claims: {scope: 'openid mcp'}})
    expect(await auth.authenticate(bearer(token))).toEqual({principal: 'auth0|alice'})
    expect(auth.configured).toBe(true)
  })

  it('refuses a wrong audience, an expired token, a foreign key, another issuer and a missing scope, saying which', async () => {
    const scope = {scope: 'mcp'}
    const cases: Array<[Parameters<JwtIssuer['token']>[0], RegExp]> = [
      [{aud: 'https://other.example.com/mcp', claims: scope}, /another audience/],
      [{aud: RESOURCE, expiresIn: -120, claims: scope}, /has expired/],
      [{aud: RESOURCE, foreignKey: true, claims: scope}, /not signed by one of the issuer's keys/],
      [{aud: RESOURCE, iss: 'https://evil.example.com', claims: scope}, /another issuer/],
      [{aud: RESOURCE, claims: {scope: 'openid'}}, /lacks the scope mcp/],
    ]
    for (const [options, why] of cases) {
      const result = await auth.authenticate(bearer(await issuer.token(options)))
      expect(result, JSON.stringify(options)).toEqual({refused: expect.stringMatching(why)})
    }
  })

  it('answers 401 naming the protected-resource metadata, with invalid_token once a token was sent', async () => {
    const metadata = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
    const none = auth.refuse(await auth.authenticate())
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer realm="ptc-mcp", resource_metadata="${metadata}"`,
    )
    const stale = await issuer.token({aud: RESOURCE, expiresIn: -120, claims: {scope: 'mcp'}})
    const expired = auth.refuse(await auth.authenticate(bearer(stale)))
    expect(expired.headers.get('www-authenticate')).toBe(
      `Bearer realm="ptc-mcp", resource_metadata="${metadata}", error="invalid_token", error_description="the token has expired: sign in again"`,
    )
    expect(await auth.authenticate('Bearer not-a-jwt')).toEqual({
      refused: 'the token is neither a bearer token of gateway.auth.bearer nor a JWT',
    })
  })

  it('publishes RFC 9728 metadata at the path-suffixed and the bare well-known paths', () => {
    expect(auth.jwt!.servesMetadataAt('/.well-known/oauth-protected-resource/mcp')).toBe(true)
    expect(auth.jwt!.servesMetadataAt('/.well-known/oauth-protected-resource')).toBe(true)
    expect(auth.jwt!.servesMetadataAt('/.well-known/oauth-protected-resource/other')).toBe(false)
    expect(auth.jwt!.metadata()).toEqual({
      resource: RESOURCE,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp'],
      resource_name: 'ptc-mcp gateway',
    })
  })

  it("answers 503 while the issuer's keys cannot be read (the token may be fine), and tells the operator", async () => {
    const warnings: string[] = []
    const logger = {...silentLogger, warn: (message: string) => warnings.push(message)}
    const {auth: config} = gatewaySchema.parse({
      auth: {oauth: {issuer: issuer.url, jwks_uri: 'http://127.0.0.1:9/jwks', resource: RESOURCE}},
    })
    const unreachable = GatewayAuth.fromConfig(config, {}, logger)
    const token = await issuer.token({aud: RESOURCE})
    const authentication = await unreachable.authenticate(bearer(token))
    expect(authentication).toEqual({unavailable: "the issuer's keys (jwks_uri) could not be read"})
    const answer = unreachable.refuse(authentication)
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toBe('10')
    expect(answer.headers.get('www-authenticate')).toBeNull()
    expect(warnings).toEqual([
      expect.stringMatching(
        /^oauth: cannot read the issuer's keys at http:\/\/127\.0\.0\.1:9\/jwks \(fetch failed \(bad port\)\)/,
      ),
    ])
  })

  it('refuses a principal claim that is missing or holds control characters', async () => {
    const {auth: config} = gatewaySchema.parse({
      auth: {
        oauth: {issuer: issuer.url, jwks_uri: issuer.jwksUri, resource: RESOURCE, principal_claim: 'email'},
      },
    })
    const byEmail = GatewayAuth.fromConfig(config, {})
    const good = await issuer.token({aud: RESOURCE, claims: {email: 'alice@example.com'}})
    expect(await byEmail.authenticate(bearer(good))).toEqual({principal: 'alice@example.com'})
    const none = await issuer.token({aud: RESOURCE})
    expect(await byEmail.authenticate(bearer(none))).toEqual({
      refused: expect.stringMatching(/email claim is not a name/),
    })
    const control = await issuer.token({aud: RESOURCE, claims: {email: 'a\nb'}})
    expect(await byEmail.authenticate(bearer(control))).toEqual({
      refused: expect.stringMatching(/control characters/),
    })
  })
})
