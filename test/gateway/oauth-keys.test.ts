// @tier integration
// gateway.auth.oauth as an operator writes it (SPEC §18): its URLs from the environment (`${VAR}`),
// and an issuer whose keys cannot be read. A token that cannot be checked is answered 503 with
// Retry-After (it may be fine), nothing runs, and the replica's log says what to fix. And many
// requests on one keep-alive connection leave no listeners piling up (no MaxListenersExceededWarning).
import {Agent, request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {MODERN_ENVELOPE} from '../helpers/json-rpc.js'
import {JwtIssuer} from '../helpers/jwt-issuer.js'
import {outcomeOf, rawCall} from './calls.js'
import {Cluster, type Started} from './cluster.js'

const cluster = new Cluster()
let issuer: JwtIssuer
let expanded: {url: string; resource: string; process: Started}
let unreachable: {url: string; resource: string; process: Started; jwksUri: string}

beforeAll(async () => {
  issuer = await JwtIssuer.start()
  const oauth = {
    issuer: '${ISSUER_URL}',
    jwks_uri: '${JWKS_URI}',
    resource: 'http://127.0.0.1:${GATEWAY_PORT}/mcp',
  }
  // A port nothing listens on: the issuer's keys cannot be fetched from it.
  const closed = await cluster.freePort()
  const ports = [await cluster.freePort(), await cluster.freePort()] as const
  const config = cluster.config({auth: {oauth}})
  const replica = async (port: number, jwksUri: string) => ({
    ...(await cluster.replica(config, port, {
      ISSUER_URL: issuer.url,
      JWKS_URI: jwksUri,
      GATEWAY_PORT: String(port),
    })),
    resource: `http://127.0.0.1:${port}/mcp`,
    jwksUri,
  })
  expanded = await replica(ports[0], issuer.jwksUri)
  unreachable = await replica(ports[1], `http://127.0.0.1:${closed}/jwks`)
}, 60_000)

afterAll(async () => {
  await cluster.stopAll()
  await issuer.close()
})

describe('gateway.auth.oauth with ${VAR} URLs', () => {
  it('checks tokens against the issuer and resource the environment names', async () => {
    const token = await issuer.token({sub: 'alice', aud: expanded.resource})
    const {status, answer} = await rawCall(expanded.url, token, {arguments: {code: 'print("as", 6 * 7)'}})
    expect(status).toBe(200)
    expect(outcomeOf(answer), JSON.stringify(answer)).toEqual({
      ok: true,
      text: expect.stringContaining('as 42'),
    })
    const metadata = await (await fetch(`${expanded.url}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(metadata).toMatchObject({resource: expanded.resource, authorization_servers: [issuer.url]})
  })
})

/** A 2026-07-28 tools/list on the agent's connection: its status. */
function listTools(url: string, token: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/mcp`,
      {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${token}`,
          'MCP-Protocol-Version': '2026-07-28',
          'Mcp-Method': 'tools/list',
        },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {_meta: MODERN_ENVELOPE}}))
  })
}

describe('one keep-alive connection', () => {
  it('serves many requests without a MaxListenersExceededWarning', async () => {
    const token = await issuer.token({sub: 'alice', aud: expanded.resource})
    const agent = new Agent({keepAlive: true, maxSockets: 1})
    const sockets = new Set<unknown>()
    agent.on('free', (socket) => sockets.add(socket))
    try {
      for (let i = 0; i < 24; i++) expect(await listTools(expanded.url, token, agent)).toBe(200)
    } finally {
      agent.destroy()
    }
    expect(sockets.size).toBe(1)
    expect(expanded.process.output()).not.toContain('MaxListenersExceededWarning')
  })
})

describe('an issuer whose keys (jwks_uri) cannot be read', () => {
  it('answers 503 with Retry-After and runs nothing; the log tells the operator', async () => {
    const token = await issuer.token({sub: 'alice', aud: unreachable.resource})
    const {status, headers, answer} = await rawCall(unreachable.url, token, {
      arguments: {code: 'print("ran")'},
    })
    expect(status).toBe(503)
    expect(headers.get('retry-after')).toBe('10')
    expect(headers.get('www-authenticate')).toBeNull()
    expect(answer.error?.message).toBe(
      "the issuer's keys (jwks_uri) could not be read, so the token could not be checked (it may be fine): retry in 10 s, or ask the gateway's operator: nothing ran",
    )
    const metrics = await (await fetch(`${unreachable.url}/metrics`)).text()
    expect(metrics).not.toMatch(/^ptc_programs_total/m)
    expect(metrics).toMatch(/^ptc_http_requests_total\{status="503"\} 1$/m)
    expect(unreachable.process.output()).toContain(
      `oauth: cannot read the issuer's keys at ${unreachable.jwksUri} (fetch failed (ECONNREFUSED)): requests with a JWT are answered 503 until it answers`,
    )
  })

  it('still refuses a token that is not a JWT with 401', async () => {
    const {status, headers} = await rawCall(unreachable.url, 'not-a-jwt-0123456789', {
      arguments: {code: 'print("ran")'},
    })
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toContain('error="invalid_token"')
  })
})
