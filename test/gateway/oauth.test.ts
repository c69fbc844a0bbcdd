// @tier integration
// The gateway as an OAuth 2.1 resource server (SPEC §18): a real issuer in the test (an HTTP server
// publishing a JWKS made with jose), one `serve --http` replica checking JWT access tokens against
// it. A good token runs a program; a wrong audience, an expired token, a foreign key or no token is
// refused with 401 and `WWW-Authenticate` naming the RFC 9728 metadata, and nothing runs.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {JwtIssuer} from '../helpers/jwt-issuer.js'
import {outcomeOf, rawCall} from './calls.js'
import {Cluster, TOKENS} from './cluster.js'

const cluster = new Cluster()
let issuer: JwtIssuer
let url: string
let resource: string

beforeAll(async () => {
  issuer = await JwtIssuer.start()
  // The resource is the /mcp URL clients reach (a balancer's): here, a port chosen before the replica.
  const port = await cluster.freePort()
  resource = `http://127.0.0.1:${port}/mcp`
  const config = cluster.config({
    auth: {
      bearer: [{principal: 'prometheus', token: '${ALICE_TOKEN}'}],
      oauth: {issuer: issuer.url, jwks_uri: issuer.jwksUri, resource},
    },
    metrics_auth: true,
  })
  ;({url} = await cluster.replica(config, port))
}, 60_000)

afterAll(async () => {
  await cluster.stopAll()
  await issuer.close()
})

const metrics = async (token?: string) =>
  fetch(`${url}/metrics`, {headers: token ? {Authorization: `Bearer ${token}`} : {}})

describe('serve --http with gateway.auth.oauth', () => {
  it('runs a program for a token the issuer signed for this resource', async () => {
    const token = await issuer.token({sub: 'alice', aud: resource})
    const {status, answer} = await rawCall(url, token, {arguments: {code: 'print("as", 6 * 7)'}})
    expect(status).toBe(200)
    expect(outcomeOf(answer), JSON.stringify(answer)).toEqual({
      ok: true,
      text: expect.stringContaining('as 42'),
    })
    expect(issuer.served.jwks).toBeGreaterThan(0)
  })

  it('refuses a wrong audience, an expired token, a foreign key and no token with 401, running nothing', async () => {
    const before = await (await metrics(TOKENS.alice)).text()
    const metadata = `http://127.0.0.1:${new URL(resource).port}/.well-known/oauth-protected-resource/mcp`
    const cases: Array<[string, string | undefined, string | undefined]> = [
      ['wrong audience', await issuer.token({aud: 'https://elsewhere.example.com/mcp'}), 'another audience'],
      ['expired', await issuer.token({aud: resource, expiresIn: -120}), 'has expired'],
      [
        'foreign key',
        await issuer.token({aud: resource, foreignKey: true}),
        "not signed by one of the issuer's keys",
      ],
      ['no token', undefined, undefined],
    ]
    for (const [name, token, why] of cases) {
      const {status, headers, answer} = await rawCall(url, token, {
        arguments: {code: 'print("ran")'},
      })
      expect(status, name).toBe(401)
      const challenge = headers.get('www-authenticate')!
      expect(challenge, name).toContain(`resource_metadata="${metadata}"`)
      if (why === undefined) expect(challenge, name).not.toContain('error=')
      else
        expect(challenge, name).toMatch(new RegExp(`error="invalid_token", error_description="[^"]*${why}`))
      expect(answer.error?.message, name).toMatch(/nothing ran$/)
    }
    const after = await (await metrics(TOKENS.alice)).text()
    // Nothing ran: the programs counted are the ones counted before.
    const programs = (text: string) =>
      text.split('\n').filter((line) => line.startsWith('ptc_programs_total'))
    expect(programs(after)).toEqual(programs(before))
    expect(after).toMatch(/^ptc_http_requests_total\{status="401"\} 4$/m)
  })

  it('publishes the protected-resource metadata at both well-known paths, without a token', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(`${url}${path}`)
      expect(response.status, path).toBe(200)
      expect(await response.json()).toEqual({
        resource,
        authorization_servers: [issuer.url],
        bearer_methods_supported: ['header'],
        resource_name: 'ptc-mcp gateway',
      })
    }
  })

  it('keeps /metrics behind a token with gateway.metrics_auth; /healthz answers anyone', async () => {
    const refused = await metrics()
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=')
    expect((await metrics('wrong-token-0123456789')).status).toBe(401)
    const scraped = await metrics(TOKENS.alice)
    expect(scraped.status).toBe(200)
    expect(await scraped.text()).toContain('# TYPE ptc_programs_total counter')
    const jwt = await issuer.token({sub: 'carol', aud: resource})
    expect((await metrics(jwt)).status).toBe(200)
    expect((await fetch(`${url}/healthz`)).status).toBe(200)
  })
})
