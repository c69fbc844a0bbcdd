// @tier integration
// Telemetry of `ptc-mcp serve` over stdio (SPEC §18), as it runs: the built binary driven by an SDK
// v2 client, an OTLP/HTTP receiver in this process taking the exporter's spans, a stdio fixture
// server and a streamable HTTP server here that records the trace context its calls arrive with.
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {freshTraceparent, OtlpReceiver, type ReceivedSpan} from '../helpers/otlp-receiver.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'
import {TracedMcpServer} from '../helpers/traced-mcp-server.js'

const SERVER_KIND = 2
const CLIENT_KIND = 3
const SECRET = 'argument-value-7f3a'
const CODE = [
  'r = await mcp__fx__add(a=20, b=22)',
  `e = await mcp__web__echo(text="${SECRET}")`,
  'try:',
  '    await mcp__fx__throws()',
  'except ToolError as err:',
  '    print("failed as planned:", err.kind)',
  'print(r["sum"], e)',
].join('\n')

const probeDir = mkdtempSync(join(tmpdir(), 'ptc-otel-probe-'))
const receiver = new OtlpReceiver()
const web = new TracedMcpServer()
const opened: Array<{client: Client; setup: ServeSetup}> = []

/**
 * A preload that notes every OpenTelemetry module serve loads, one line each, in its own file:
 * unconfigured, serve must not load any (SPEC §18; the bench measures its start and CPU).
 */
function otelLoadsProbe(dir: string): {env: Record<string, string>; loaded: () => string[]} {
  const log = join(dir, 'otel-loads.txt')
  const hook = join(dir, 'otel-loads.cjs')
  writeFileSync(
    hook,
    `const Module = require('node:module'), {appendFileSync} = require('node:fs'), load = Module._load
Module._load = function (request, ...rest) {
  if (String(request).startsWith('@opentelemetry/')) appendFileSync(${JSON.stringify(log)}, request + '\\n')
  return load.call(this, request, ...rest)
}
`,
  )
  return {
    env: {NODE_OPTIONS: `--require ${hook}`},
    loaded: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
  }
}

async function serve(
  telemetry?: Record<string, unknown>,
  extraEnv: Record<string, string> = {},
): Promise<Client> {
  const fixture = fixtureCommand(['--name', 'fx'])
  const setup = prepareServe({
    servers: [
      {name: 'fx', ...fixture},
      {name: 'web', transport: 'http', url: web.url},
    ],
    execution: {timeout_seconds: 30},
    ...(telemetry && {telemetry}),
  })
  // Spans go out within 100 ms, not the SDK's default 5 s.
  const env: Record<string, string> = {...setup.env, OTEL_BSP_SCHEDULE_DELAY: '100', ...extraEnv}
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: setup.args,
    env,
    stderr: 'pipe',
  })
  const client = new Client({name: 'telemetry-test', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
  await client.connect(transport)
  opened.push({client, setup})
  const deadline = Date.now() + 45_000
  for (;;) {
    const listed = (await client.callTool({name: 'list_callable_tools', arguments: {}})) as {
      content: Array<{text: string}>
    }
    const names = listed.content[0]?.text ?? ''
    if (names.includes('mcp__fx__add') && names.includes('mcp__web__echo')) return client
    if (Date.now() > deadline) throw new Error(`the servers never connected: ${names}`)
    await new Promise((done) => {
      setTimeout(done, 300)
    })
  }
}

async function program(client: Client, traceparent?: string): Promise<string> {
  const result = (await client.callTool({
    name: 'execute_program',
    arguments: {code: CODE},
    ...(traceparent && {_meta: {traceparent}}),
  })) as {isError?: boolean; content: Array<{text: string}>}
  expect(result.isError, result.content[0]?.text).toBeFalsy()
  return result.content[0]!.text
}

/** The program span of trace `traceId` and its children, once all four have arrived. */
async function traceOf(traceId: string): Promise<{root: ReceivedSpan; calls: ReceivedSpan[]}> {
  const spans = await receiver.waitFor((all) => all.filter((span) => span.traceId === traceId).length >= 4)
  const mine = spans.filter((span) => span.traceId === traceId)
  const roots = mine.filter((span) => span.kind === SERVER_KIND)
  expect(roots).toHaveLength(1)
  const root = roots[0]!
  const calls = mine.filter((span) => span.parentSpanId === root.spanId)
  expect(mine).toHaveLength(1 + calls.length)
  return {root, calls}
}

beforeAll(async () => {
  await receiver.start()
  await web.start()
}, 30_000)

afterAll(async () => {
  await Promise.allSettled(opened.map(({client}) => client.close()))
  for (const {setup} of opened) setup.cleanup()
  await web.stop()
  await receiver.stop()
  rmSync(probeDir, {recursive: true, force: true})
})

describe('serve over stdio with telemetry.otlp', () => {
  let client: Client
  beforeAll(async () => {
    client = await serve({otlp: receiver.url})
  }, 60_000)

  it("makes one span per program in the client's trace and one child span per tool call", async () => {
    const client_ = freshTraceparent()
    expect(await program(client, client_.traceparent)).toContain(`42 ${SECRET}`)
    const {root, calls} = await traceOf(client_.traceId)
    expect(root).toMatchObject({
      name: 'tools/call execute_program',
      parentSpanId: client_.spanId,
      service: 'ptc-mcp',
      attributes: {'ptc.outcome': 'ok', 'ptc.tool_calls': 3},
    })
    expect(calls.map((call) => call.name).sort()).toEqual([
      'tools/call add',
      'tools/call echo',
      'tools/call throws',
    ])
    for (const call of calls) expect(call.kind).toBe(CLIENT_KIND)
    const byTool = Object.fromEntries(calls.map((call) => [call.attributes['gen_ai.tool.name'], call]))
    expect(byTool.add!.attributes).toMatchObject({'ptc.server': 'fx', 'ptc.outcome': 'ok'})
    expect(byTool.echo!.attributes).toMatchObject({'ptc.server': 'web', 'ptc.outcome': 'ok'})
    expect(byTool.echo!.attributes['ptc.result_bytes']).toBeGreaterThan(0)
    expect(byTool.throws!.attributes).toMatchObject({'ptc.outcome': 'tool_error', 'error.type': 'tool_error'})
    expect(byTool.throws!.status.code).toBe(2)
    // No argument values, no code, by default.
    expect(JSON.stringify([root, ...calls])).not.toContain(SECRET)
    expect(root.attributes).not.toHaveProperty('ptc.program.code')
    // The HTTP server got the echo call's own context, as a header and in _meta.
    const echo = byTool.echo!
    const expected = `00-${client_.traceId}-${echo.spanId}-01`
    expect(web.calls.at(-1)).toEqual({tool: 'echo', header: expected, meta: expected})
  })

  it('starts a trace of its own when the request carries no traceparent', async () => {
    const before = new Set(receiver.spans.map((span) => span.traceId))
    await program(client)
    const spans = await receiver.waitFor(
      (all) => all.filter((span) => span.kind === SERVER_KIND && !before.has(span.traceId)).length === 1,
    )
    const root = spans.find((span) => span.kind === SERVER_KIND && !before.has(span.traceId))!
    expect(root.parentSpanId).toBe('')
    const {calls} = await traceOf(root.traceId)
    expect(calls).toHaveLength(3)
    expect(web.calls.at(-1)!.header).toMatch(new RegExp(`^00-${root.traceId}-[\\da-f]{16}-01$`))
  })
})

describe('serve over stdio with telemetry.arguments: true', () => {
  it("puts the program's code and each call's arguments in the spans", async () => {
    const probe = otelLoadsProbe(mkdtempSync(join(probeDir, 'on-')))
    const client = await serve({otlp: receiver.url, arguments: true}, probe.env)
    const trace = freshTraceparent()
    await program(client, trace.traceparent)
    expect(probe.loaded()).toContain('@opentelemetry/sdk-trace-base')
    const {root, calls} = await traceOf(trace.traceId)
    expect(root.attributes['ptc.program.code']).toBe(CODE)
    const echo = calls.find((call) => call.attributes['gen_ai.tool.name'] === 'echo')!
    expect(JSON.parse(echo.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({text: SECRET})
  }, 90_000)
})

describe('serve over stdio without telemetry', () => {
  it("passes the client's traceparent on to HTTP servers as it came, exports nothing, loads no OpenTelemetry", async () => {
    const probe = otelLoadsProbe(mkdtempSync(join(probeDir, 'off-')))
    const client = await serve(undefined, probe.env)
    const trace = freshTraceparent()
    const received = receiver.spans.length
    await program(client, trace.traceparent)
    expect(web.calls.at(-1)).toEqual({tool: 'echo', header: trace.traceparent, meta: trace.traceparent})
    await new Promise((done) => {
      setTimeout(done, 500)
    })
    expect(receiver.spans.filter((span) => span.traceId === trace.traceId)).toEqual([])
    expect(receiver.spans).toHaveLength(received)
    expect(probe.loaded()).toEqual([])
  }, 90_000)
})
