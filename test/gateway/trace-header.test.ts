// @tier integration
// The client's trace from an HTTP `traceparent` header (SPEC §18): a client that sends its context
// as a header of its request to the gateway, not in `_meta`, gets the program span in its trace, in
// both eras; `_meta`'s `traceparent`, when there is one, comes first.
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport as HttpV1} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {freshTraceparent, OtlpReceiver} from '../helpers/otlp-receiver.js'
import {outcomeOf, rawCall, run} from './calls.js'
import {Cluster, TOKENS} from './cluster.js'

const cluster = new Cluster()
const receiver = new OtlpReceiver()
const clients: Array<{close(): Promise<void>}> = []
let url: string

beforeAll(async () => {
  await receiver.start()
  const config = cluster.config({}, {telemetry: {otlp: receiver.url}})
  // Spans go out within 100 ms, not the SDK's default 5 s.
  ;({url} = await cluster.replica(config, 0, {OTEL_BSP_SCHEDULE_DELAY: '100'}))
}, 60_000)

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()))
  await cluster.stopAll()
  await receiver.stop()
})

/** The one program span of `trace`, once received. */
async function programSpanOf(trace: {traceId: string}) {
  const spans = await receiver.waitFor((all) => all.some((span) => span.traceId === trace.traceId))
  const mine = spans.filter((span) => span.traceId === trace.traceId)
  expect(mine).toHaveLength(1)
  return mine[0]!
}

describe('a traceparent header on the request to the gateway', () => {
  it("is the program span's parent when _meta has none (2026-07-28, plain HTTP)", async () => {
    const trace = freshTraceparent()
    const {status, answer} = await rawCall(
      url,
      TOKENS.alice,
      {arguments: {code: 'print("traced")'}},
      {traceparent: trace.traceparent},
    )
    expect(status).toBe(200)
    expect(outcomeOf(answer), JSON.stringify(answer)).toEqual({
      ok: true,
      text: expect.stringContaining('traced'),
    })
    expect(await programSpanOf(trace)).toMatchObject({
      parentSpanId: trace.spanId,
      attributes: {'ptc.principal': 'alice', 'ptc.outcome': 'ok'},
    })
  })

  it("is the parent in a 2025-era client's session too", async () => {
    const trace = freshTraceparent()
    const client = new ClientV1({name: 'trace-header-v1', version: '1.0.0'})
    await client.connect(
      new HttpV1(new URL(`${url}/mcp`), {
        requestInit: {headers: {Authorization: `Bearer ${TOKENS.bob}`, traceparent: trace.traceparent}},
      }),
    )
    clients.push(client)
    expect((await run(client, 'print("v1")')).ok).toBe(true)
    expect(await programSpanOf(trace)).toMatchObject({
      parentSpanId: trace.spanId,
      attributes: {'ptc.principal': 'bob'},
    })
  })

  it("gives way to _meta's traceparent when both are sent", async () => {
    const header = freshTraceparent()
    const meta = freshTraceparent()
    const client = new Client({name: 'trace-header', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: {headers: {Authorization: `Bearer ${TOKENS.alice}`, traceparent: header.traceparent}},
      }),
    )
    clients.push(client)
    const result = (await client.callTool({
      name: 'execute_program',
      arguments: {code: 'print("both")'},
      _meta: {traceparent: meta.traceparent},
    })) as {isError?: boolean}
    expect(result.isError).toBeFalsy()
    expect(await programSpanOf(meta)).toMatchObject({parentSpanId: meta.spanId})
    expect(receiver.spans.filter((span) => span.traceId === header.traceId)).toEqual([])
  })
})
