// @tier integration
// The team gateway as it would run (SPEC §18): Redis, two `serve --http` replicas, HAProxy with
// examples/gateway/haproxy.cfg, driven by SDK clients of both eras with bearer tokens.
import type {Client} from '@modelcontextprotocol/client'

import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport as HttpV1} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {counted, modernClient, rawCall, run} from './calls.js'
import {Cluster, type Started, TOKENS} from './cluster.js'

const cluster = new Cluster()
let replicas: Array<{url: string; process: Started}>
let balancer: string
const clients: Array<{close(): Promise<void>}> = []
let counterFile: string

const deletes = () =>
  existsSync(counterFile)
    ? readFileSync(counterFile, 'utf8')
        .split('\n')
        .filter((line) => line === 'delete_item').length
    : 0

/** An SDK client of the 2026-07-28 era, closed after the suite. */
async function connect(url: string, token: string): Promise<Client> {
  const client = await modernClient(url, token)
  clients.push(client)
  return client
}

async function metrics(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text()
}

beforeAll(async () => {
  const store = await cluster.redis()
  counterFile = join(cluster.dir, 'fx.calls')
  const fixture = fixtureCommand(['--name', 'fx', '--counter-file', counterFile])
  const config = cluster.config(
    {store},
    {
      servers: [{name: 'fx', ...fixture}],
      permissions: {claude_code: false, ask_unlisted: 'destructive', approval_timeout_seconds: 60},
    },
  )
  replicas = [await cluster.replica(config), await cluster.replica(config)]
  balancer = await cluster.haproxy(replicas.map((replica) => replica.url))
}, 90_000)

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()))
  await cluster.stopAll()
})

describe('the team gateway behind HAProxy, sharing Redis', () => {
  it('answers 401 with WWW-Authenticate to no token and to a wrong one, and runs nothing', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {name: 'execute_program', arguments: {code: 'print(1)'}},
    })
    const headers = {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream'}
    const none = await fetch(`${balancer}/mcp`, {method: 'POST', headers, body})
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="ptc-mcp"$/)
    const wrong = await fetch(`${balancer}/mcp`, {
      method: 'POST',
      headers: {...headers, Authorization: `Bearer ${TOKENS.alice}x`},
      body,
    })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"')
    await expect(connect(balancer, 'not-a-token-of-anyone')).rejects.toThrow()
    for (const {url} of replicas) expect(await metrics(url)).not.toMatch(/^ptc_programs_total/m)
  })

  it("keeps alice's state across replicas; bob cannot load it", async () => {
    const alice1 = await connect(replicas[0]!.url, TOKENS.alice)
    const alice2 = await connect(replicas[1]!.url, TOKENS.alice)
    const bob2 = await connect(replicas[1]!.url, TOKENS.bob)
    expect(alice1.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const stored = await run(alice1, 'await store("plan", {"step": 3, "who": "alice"})\nprint("stored")')
    expect(stored, stored.text).toMatchObject({ok: true})
    const loaded = await run(alice2, 'print(await load("plan"))')
    expect(loaded.text).toContain("{'step': 3, 'who': 'alice'}")
    const bobs = await run(bob2, 'print(await load("plan", "nothing"))\nprint(await stored())')
    expect(bobs.text).toContain('nothing')
    expect(bobs.text).not.toContain('alice')
  })

  it("resumes alice's program paused on replica 1 through replica 2; bob's resume runs nothing", async () => {
    const code = 'print("start")\nprint(await mcp__fx__delete_item(id="a1"))\nprint("end")'
    const {answer: paused} = await rawCall(replicas[0]!.url, TOKENS.alice, {arguments: {code}})
    expect(paused.result, JSON.stringify(paused)).toMatchObject({resultType: 'input_required'})
    const {requestState, inputRequests} = paused.result!
    const answer = {
      arguments: {code},
      requestState,
      inputResponses: {[Object.keys(inputRequests)[0]!]: {action: 'accept', content: {decision: 'once'}}},
    }
    const {answer: bobs} = await rawCall(replicas[1]!.url, TOKENS.bob, answer)
    expect(bobs.result?.isError, JSON.stringify(bobs)).toBe(true)
    expect(bobs.result?.content[0]!.text).toContain('issued to another caller: nothing ran')
    expect(deletes()).toBe(0)
    const {answer: alices} = await rawCall(replicas[1]!.url, TOKENS.alice, answer)
    expect(alices.result?.structuredContent?.output, JSON.stringify(alices)).toBe('start\ndeleted a1\nend\n')
    expect(deletes()).toBe(1)
    // The program ran on replica 1: its tool call is counted there, by server.
    expect(await metrics(replicas[0]!.url)).toMatch(/^ptc_tool_calls_total\{server="fx",ok="true"\} 1$/m)
  })

  it('keeps a 2025-era session on one replica through HAProxy for several calls', async () => {
    const client = new ClientV1({name: 'gateway-v1', version: '1.0.0'})
    const transport = new HttpV1(new URL(`${balancer}/mcp`), {
      requestInit: {headers: {Authorization: `Bearer ${TOKENS.alice}`}},
    })
    await client.connect(transport)
    clients.push(client)
    expect(transport.sessionId).toMatch(/^[\da-f-]{36}$/)
    expect(client.getServerVersion()?.name).toBe('ptc-mcp')
    // Round robin would send every other request to the replica that does not know the session.
    const answers: string[] = []
    for (let i = 0; i < 4; i++) {
      const result = await run(client, `await store("n", ${i})\nprint("call", await load("n"))`)
      expect(result, result.text).toMatchObject({ok: true})
      answers.push(result.text)
    }
    expect(answers.join('\n')).toContain('call 3')
    // The session's state is its own: not the stateless principal's.
    const modern = await connect(balancer, TOKENS.alice)
    expect((await run(modern, 'print(await load("n", "unset"))')).text).toContain('unset')
  })

  it('counts programs by outcome in /metrics', async () => {
    const before = await metrics(replicas[0]!.url)
    const client = await connect(replicas[0]!.url, TOKENS.bob)
    expect((await run(client, 'print("fine")')).ok).toBe(true)
    expect((await run(client, 'raise ValueError("planned")')).ok).toBe(false)
    const after = await metrics(replicas[0]!.url)
    expect(counted(after, 'ok')).toBe(counted(before, 'ok') + 1)
    expect(counted(after, 'error')).toBe(counted(before, 'error') + 1)
    expect(after).toMatch(/^ptc_programs_queued 0$/m)
    expect(after).toMatch(/^ptc_programs_running 0$/m)
  })

  it("survives replica 1's SIGKILL: alice's programs go on through HAProxy with her state", async () => {
    const alice = await connect(balancer, TOKENS.alice)
    const stored = await run(alice, 'await store("ledger", [1, 2, 3])\nprint("ok")')
    expect(stored.ok, stored.text).toBe(true)
    await replicas[0]!.process.kill('SIGKILL')
    for (let i = 0; i < 3; i++) {
      const result = await run(alice, 'print(sum(await load("ledger")))')
      expect(result, result.text).toMatchObject({ok: true})
      expect(result.text).toContain('6')
    }
    expect((await fetch(`${replicas[1]!.url}/readyz`)).status).toBe(200)
  })
})
