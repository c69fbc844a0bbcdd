// @tier integration
// Telemetry through the team gateway (SPEC §18): two `serve --http` replicas behind HAProxy sharing
// Redis, each exporting to an OTLP/HTTP receiver in this test; SDK clients of both eras send
// `traceparent` in `_meta`; a streamable HTTP server here records the context its calls arrive with.
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport as HttpV1} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {freshTraceparent, OtlpReceiver} from '../helpers/otlp-receiver.js'
import {TracedMcpServer} from '../helpers/traced-mcp-server.js'
import {Cluster, TOKENS} from './cluster.js'

const SERVER_KIND = 2
const CODE = 'a = await mcp__web__echo(text="one")\nb = await mcp__web__echo(text="two")\nprint(a, b)'

const cluster = new Cluster()
const receiver = new OtlpReceiver()
const web = new TracedMcpServer()
const clients: Array<{close(): Promise<void>}> = []
let balancer: string
const savedDelay = process.env.OTEL_BSP_SCHEDULE_DELAY

interface ProgramResult {
  isError?: boolean
  content: Array<{text?: string}>
}

beforeAll(async () => {
  await receiver.start()
  await web.start()
  // The replicas inherit it: spans go out within 100 ms, not the SDK's default 5 s.
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100'
  const store = await cluster.redis()
  const config = cluster.config(
    {store},
    {servers: [{name: 'web', transport: 'http', url: web.url}], telemetry: {otlp: receiver.url}},
  )
  const replicas = [await cluster.replica(config), await cluster.replica(config)]
  balancer = await cluster.haproxy(replicas.map((replica) => replica.url))
}, 90_000)

afterAll(async () => {
  if (savedDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY
  else process.env.OTEL_BSP_SCHEDULE_DELAY = savedDelay
  await Promise.allSettled(clients.map((client) => client.close()))
  await cluster.stopAll()
  await web.stop()
  await receiver.stop()
})

/** Checks the trace of one program: its one span, for `principal`, and one child per echo call. */
async function expectTrace(trace: ReturnType<typeof freshTraceparent>, principal: string): Promise<void> {
  const spans = await receiver.waitFor(
    (all) => all.filter((span) => span.traceId === trace.traceId).length >= 3,
  )
  const mine = spans.filter((span) => span.traceId === trace.traceId)
  const roots = mine.filter((span) => span.kind === SERVER_KIND)
  expect(roots).toHaveLength(1)
  const root = roots[0]!
  expect(root).toMatchObject({
    parentSpanId: trace.spanId,
    attributes: {'ptc.principal': principal, 'ptc.outcome': 'ok', 'ptc.tool_calls': 2},
  })
  const calls = mine.filter((span) => span.parentSpanId === root.spanId)
  expect(calls).toHaveLength(2)
  expect(mine).toHaveLength(3)
  for (const call of calls)
    expect(call.attributes).toMatchObject({
      'ptc.server': 'web',
      'gen_ai.tool.name': 'echo',
      'ptc.outcome': 'ok',
    })
  // Each call reached the server with its own span's context, as a header and in _meta.
  const received = web.calls.filter((call) => call.header?.includes(trace.traceId))
  expect(received.map((call) => call.header).sort()).toEqual(
    calls.map((call) => `00-${trace.traceId}-${call.spanId}-01`).sort(),
  )
  for (const call of received) expect(call.meta).toBe(call.header)
}

describe('telemetry through the gateway behind HAProxy', () => {
  it("exports one span per program in the 2026-07-28 client's trace, on whichever replica ran it", async () => {
    const client = new Client({name: 'gw-trace', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${balancer}/mcp`), {
        requestInit: {headers: {Authorization: `Bearer ${TOKENS.alice}`}},
      }),
    )
    clients.push(client)
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    // Round robin: four programs run on both replicas.
    for (let i = 0; i < 4; i++) {
      const trace = freshTraceparent()
      const result = (await client.callTool({
        name: 'execute_program',
        arguments: {code: CODE},
        _meta: {traceparent: trace.traceparent},
      })) as ProgramResult
      expect(result.isError, result.content[0]?.text).toBeFalsy()
      await expectTrace(trace, 'alice')
    }
  })

  it("exports the 2025-era client's programs in its trace too, through its sticky session", async () => {
    const client = new ClientV1({name: 'gw-trace-v1', version: '1.0.0'})
    await client.connect(
      new HttpV1(new URL(`${balancer}/mcp`), {
        requestInit: {headers: {Authorization: `Bearer ${TOKENS.bob}`}},
      }),
    )
    clients.push(client)
    for (let i = 0; i < 2; i++) {
      const trace = freshTraceparent()
      const result = (await client.callTool({
        name: 'execute_program',
        arguments: {code: CODE},
        _meta: {traceparent: trace.traceparent},
      })) as ProgramResult
      expect(result.isError, result.content[0]?.text).toBeFalsy()
      await expectTrace(trace, 'bob')
    }
  })
})
