// @tier integration
// Downstream servers that fail in every way we know of: each fault must reach the program as a
// ToolError, or list_callable_tools as an unavailable server with its reason, and the server must
// come back by itself, without restarting ptc-mcp. One `serve` holds all the faulty servers.
//
// `serve` cannot shorten the reconnect backoff (1 s doubling, SPEC §4), so the faults seen through
// it are kept short; the same recoveries are also driven at the registry level with a short backoff.
import {mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {ServerConfig} from '../../src/config/schema.js'

import {ToolRegistry} from '../../src/downstream/registry.js'
import {ToolError} from '../../src/downstream/types.js'
import {silentLogger} from '../../src/shared/log.js'
import {fixtureCommand, type HttpFixture, startHttpFixture} from '../fixtures/start-fixture.js'
import {type FaultMode, type FaultProxy, startFaultProxy} from '../helpers/fault-proxy.js'
import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {commandLine, descendants} from '../helpers/processes.js'
import {whenRegistry} from '../helpers/registry.js'
import {execute, expectCleanShutdown, type Listing, serves, waitForListing} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

let gates: string
let http: HttpFixture
let sse: HttpFixture

beforeAll(async () => {
  gates = mkdtempSync(join(tmpdir(), 'ptc-gates-'))
  const fixtures = await Promise.all([
    startHttpFixture({transport: 'http'}),
    startHttpFixture({transport: 'sse'}),
  ])
  http = fixtures[0]
  sse = fixtures[1]
}, 60_000)

afterAll(async () => {
  await Promise.all([http?.stop(), sse?.stop()])
  rmSync(gates, {recursive: true, force: true})
})

/** While the gate file exists, the server fails at start (`onClosed: 'exit'`) or hangs (`'hang'`). */
function gatedFixture(name: string, onClosed: 'exit' | 'hang' = 'exit'): ServerConfig {
  const {command, args} = fixtureCommand(['--name', name])
  const closed = onClosed === 'exit' ? 'echo "gate closed" >&2; exit 1' : 'exec sleep 600'
  return {
    name,
    transport: 'stdio',
    command: '/bin/sh',
    args: ['-c', `if [ -e "$0" ]; then ${closed}; fi; exec "$@"`, gatePath(name), command, ...args],
    env: {},
  }
}

const gatePath = (name: string) => join(gates, name)
const closeGate = (name: string) => writeFileSync(gatePath(name), '')
const openGate = (name: string) => rmSync(gatePath(name), {force: true})

function stdioFixture(name: string, flags: string[]): ServerConfig {
  const {command, args} = fixtureCommand(['--name', name, ...flags])
  return {name, transport: 'stdio', command, args, env: {}}
}

describe('downstream faults seen through serve', () => {
  const SERVERS = ['fx', 'between', 'hung', 'slow', 'garbage', 'quits', 'web', 'stream', 'locked', 'dropper']
  let web: FaultProxy
  let stream: FaultProxy
  let locked: FaultProxy
  let dropper: FaultProxy
  let setup: ServeSetup
  let serve: RawServe

  const waitFor = (check: (listing: Listing) => boolean, what: string, timeoutMs = 30_000) =>
    waitForListing(serve, SERVERS, check, {what, timeoutMs})

  /** The pid of a stdio fixture started by serve, found by its --name. */
  const fixturePid = (name: string): number | undefined =>
    descendants(serve.child.pid!).find((pid) => {
      const line = commandLine(pid)
      return line.startsWith(process.execPath) && line.includes(`--name ${name}`)
    })

  beforeAll(async () => {
    const proxies = await Promise.all(
      [http, sse, http, http].map((fixture) => startFaultProxy(root(fixture))),
    )
    web = proxies[0]!
    stream = proxies[1]!
    locked = proxies[2]!
    dropper = proxies[3]!
    locked.setMode({kind: 'status', status: 401})
    dropper.setMode({kind: 'drop'})
    setup = prepareServe({
      servers: [
        gatedFixture('fx'),
        gatedFixture('between'),
        stdioFixture('hung', ['--hang-start']),
        stdioFixture('slow', ['--delay-start-ms', '2500']),
        stdioFixture('garbage', ['--garbage-stdout']),
        stdioFixture('quits', ['--exit-at-start']),
        {name: 'web', transport: 'http', url: web.url('/mcp')},
        {name: 'stream', transport: 'sse', url: stream.url('/sse')},
        {name: 'locked', transport: 'http', url: locked.url('/mcp')},
        {name: 'dropper', transport: 'http', url: dropper.url('/mcp')},
      ],
      // Calls that answer get 3 s, room on a loaded box; the hung call meets the limit.
      execution: {timeout_seconds: 30, tool_call_timeout_seconds: 3},
    })
    serve = await startRawServe(setup)
    // Eight fixture processes start at once on a small machine: give them time.
    await waitFor((l) => ['fx', 'between', 'web', 'stream'].every((s) => serves(l, s)), 'connected', 60_000)
  }, 90_000)

  afterAll(async () => {
    if (serve) {
      await expectCleanShutdown(serve, setup)
    }
    await Promise.all([web, stream, locked, dropper].map((proxy) => proxy?.close()))
    setup?.cleanup()
  }, 30_000)

  it('a slow start and garbage on stdout: the tools arrive by themselves and work', async () => {
    await waitFor((l) => serves(l, 'slow') && serves(l, 'garbage'), 'slow and garbage connected')
    const run = await execute(
      serve,
      'a = await mcp__slow__add(a=1, b=2)\nb = await mcp__garbage__echo(text="clean")\nprint(a["sum"], b)',
    )
    expect(run.text).toMatch(/^\[Script executed successfully\]\n3 clean\n/)
  })

  it('exit at startup, hang on connect, HTTP 401, dropped connections: each unavailable with its reason, and a ToolError naming it', async () => {
    const listing = await waitFor(
      (l) =>
        ['quits', 'locked', 'dropper'].every(
          (s) => l.unavailable[s] && !l.unavailable[s].startsWith('starting for'),
        ),
      'failed with reasons',
    )
    const {unavailable} = listing
    expect(unavailable.quits).toBe(
      'server process exited during startup; stderr: fixture-server: exiting at start as asked',
    )
    // Still on its first attempt for 30 s (the connect bound), then the timeout is the reason.
    expect(unavailable.hung).toMatch(
      /^(starting for \d+s, calls wait up to 30s|no answer within 30s \(connect timeout\))$/,
    )
    expect(unavailable.locked).toMatch(
      /^HTTP 401 Unauthorized \(check the headers, such as Authorization, in the config\)/,
    )
    expect(unavailable.dropper).toMatch(/fetch failed|other side closed|socket hang up|ECONNRESET/)
    for (const server of ['quits', 'hung', 'locked', 'dropper'])
      expect(listing.names.some((name) => name.startsWith(`mcp__${server}__`))).toBe(false)

    // Written as direct calls: a tool name in the program is callable even while its server is down.
    const calls = ['quits', 'hung', 'locked', 'dropper', 'quits'].map(
      (server, index) =>
        `try:\n    await mcp__${server}__${index === 4 ? 'echo(text="x")' : 'add(a=1, b=1)'}\nexcept ToolError as e:\n    print("${server}:", e)`,
    )
    const run = await execute(serve, calls.join('\n'))
    const lines = run.output.trim().split('\n')
    expect(lines[0]).toBe(`quits: server 'quits' is not connected (${unavailable.quits})`)
    expect(lines[1]).toMatch(/^hung: server 'hung' is not connected \((connecting|no answer within 30s)/)
    expect(lines[2]).toMatch(/^locked: server 'locked' is not connected \(HTTP 401 Unauthorized/)
    expect(lines[3]).toMatch(/^dropper: server 'dropper' is not connected \(/)
    expect(lines[4]).toBe(lines[0])
  })

  it('a call that hangs is a ToolError after tool_call_timeout_seconds, and the server stays connected', async () => {
    const pid = fixturePid('fx')
    const run = await execute(
      serve,
      'try:\n    await mcp__fx__hang()\nexcept ToolError as e:\n    print("hang:", e)\nprint(await mcp__fx__add(a=2, b=2))',
    )
    expect(run.structured.output, run.text).toBe(
      "hang: tool call timed out after 3s (execution.tool_call_timeout_seconds): ask for less per call, or make fewer calls at once\n{'sum': 4}\n",
    )
    expect(fixturePid('fx')).toBe(pid)
  })

  it('a crash mid-call: ToolError in the program, the server unavailable with its reason, then back by itself', async () => {
    const before = fixturePid('fx')
    expect(before).toBeDefined()
    closeGate('fx') // the restarts fail until the gate opens: the outage can be seen
    const run = await execute(
      serve,
      [
        'try:\n    await mcp__fx__crash()\nexcept ToolError as e:\n    print("crash:", e)',
        'try:\n    await mcp__fx__add(a=1, b=1)\nexcept ToolError as e:\n    print("then:", e)',
      ].join('\n'),
    )
    const [crash, then] = run.output.trim().split('\n')
    expect(crash).toMatch(
      /^crash: lost the connection to server 'fx' during the call( \(server process exited\))?$/,
    )
    expect(then).toMatch(/^then: server 'fx' is not connected \(server process exited/)

    // It keeps trying on its own: a failed restart shows its own reason.
    const down = await waitFor((l) => /gate closed/.test(l.unavailable.fx ?? ''), 'restart attempted')
    expect(down.unavailable.fx).toBe('server process exited during startup; stderr: gate closed')
    expect(serves(down, 'fx')).toBe(false)

    openGate('fx')
    await waitFor((l) => serves(l, 'fx'), 'fx back')
    expect(fixturePid('fx')).not.toBe(before)
    expect((await execute(serve, 'print((await mcp__fx__add(a=20, b=22))["sum"])')).text).toMatch(
      /^\[Script executed successfully\]\n42\n/,
    )
  })

  it('a server killed between calls is noticed, reported and restarted', async () => {
    const before = fixturePid('between')
    expect(before).toBeDefined()
    closeGate('between')
    process.kill(before!, 'SIGKILL')
    const down = await waitFor((l) => l.unavailable.between !== undefined, 'between down')
    expect(down.unavailable.between).toMatch(/^server process exited/)

    const run = await execute(
      serve,
      'try:\n    await mcp__between__add(a=1, b=1)\nexcept ToolError as e:\n    print(e)',
    )
    expect(run.structured.output, run.text).toMatch(
      /^server 'between' is not connected \(server process exited/,
    )

    openGate('between')
    await waitFor((l) => serves(l, 'between'), 'between back')
    expect(fixturePid('between')).not.toBe(before)
    expect((await execute(serve, 'print((await mcp__between__add(a=1, b=1))["sum"])')).text).toMatch(
      /^\[Script executed successfully\]\n2\n/,
    )
  })

  it('an HTTP server answering 500: ToolError with the status, unavailable, then back', async () => {
    web.setMode({kind: 'status', status: 500})
    const run = await execute(
      serve,
      'try:\n    await mcp__web__add(a=1, b=1)\nexcept ToolError as e:\n    print(e)',
    )
    expect(run.structured.output, run.text).toMatch(
      /^call to server 'web' failed: HTTP 500 Internal Server Error: /,
    )
    const down = await waitFor((l) => l.unavailable.web !== undefined, 'web down')
    expect(down.unavailable.web).toMatch(/HTTP 500 Internal Server Error/)
    expect(serves(down, 'web')).toBe(false)

    web.setMode({kind: 'pass'})
    await waitFor((l) => serves(l, 'web'), 'web back')
    expect((await execute(serve, 'print((await mcp__web__add(a=2, b=3))["sum"])')).text).toMatch(
      /^\[Script executed successfully\]\n5\n/,
    )
  })

  it('an SSE stream that drops: unavailable with the reason, ToolError meanwhile, then back', async () => {
    stream.setMode({kind: 'drop'})
    const down = await waitFor((l) => l.unavailable.stream !== undefined, 'stream down')
    expect(down.unavailable.stream).toMatch(/SSE error|other side closed|terminated|fetch failed/)
    const run = await execute(
      serve,
      'try:\n    await mcp__stream__add(a=1, b=1)\nexcept ToolError as e:\n    print(e)',
    )
    expect(run.structured.output, run.text).toMatch(/^server 'stream' is not connected \(.+\)\n$/)

    stream.setMode({kind: 'pass'})
    await waitFor((l) => serves(l, 'stream'), 'stream back')
    expect((await execute(serve, 'print((await mcp__stream__add(a=3, b=4))["sum"])')).text).toMatch(
      /^\[Script executed successfully\]\n7\n/,
    )
  })
})

describe('recovery with a short backoff (registry level)', () => {
  const CALL = {timeoutMs: 5000, maxResultBytes: 1_000_000}
  const CYCLES = 10
  let proxies: FaultProxy[] = []
  let registry: ToolRegistry | undefined

  afterAll(async () => {
    await registry?.close()
    await Promise.all(proxies.map((proxy) => proxy.close()))
    proxies = []
  })

  function connectedTo(name: string): boolean {
    return registry!.serverStatus().find((s) => s.name === name)?.connected === true
  }

  const whenServed = (check: () => boolean, what: string) => whenRegistry(registry!, check, what, 15_000)

  const cases: Array<{server: 'web' | 'stream'; fault: FaultMode; reason: RegExp}> = [
    {server: 'web', fault: {kind: 'status', status: 500}, reason: /HTTP 500 Internal Server Error/},
    {server: 'web', fault: {kind: 'status', status: 401}, reason: /HTTP 401 Unauthorized/},
    {server: 'web', fault: {kind: 'drop'}, reason: /fetch failed|other side closed|ECONNRESET/},
    {server: 'stream', fault: {kind: 'status', status: 500}, reason: /500/},
    {server: 'stream', fault: {kind: 'drop'}, reason: /SSE error|other side closed|terminated|fetch failed/},
  ]

  it('HTTP and SSE servers that fail (500, 401, dropped connections) come back on their own', async () => {
    const [web, stream] = await Promise.all([
      startFaultProxy(new URL(http.url).origin),
      startFaultProxy(new URL(sse.url).origin),
    ])
    proxies.push(web, stream)
    const proxyOf = {web, stream}
    registry = new ToolRegistry(
      {
        servers: [
          {name: 'web', transport: 'http', url: web.url('/mcp'), headers: {}},
          {name: 'stream', transport: 'sse', url: stream.url('/sse'), headers: {}},
        ],
      },
      {logger: silentLogger, backoff: {initialMs: 50, maxMs: 200}},
    )
    registry.start()
    await whenServed(() => connectedTo('web') && connectedTo('stream'), 'connected')

    for (const {server, fault, reason} of cases) {
      proxyOf[server].setMode(fault)
      // A call fails with a ToolError, and the connection is found lost (a drop is seen without any call).
      const error = await registry
        .callTool(`mcp__${server}__add`, {a: 1, b: 1}, CALL)
        .catch((error_: unknown) => error_)
      expect(error, `${server} ${fault.kind}`).toBeInstanceOf(ToolError)
      await whenServed(() => !connectedTo(server), `${server} down (${fault.kind})`)
      await whenServed(
        () => reason.test(registry!.unavailableServers().find((s) => s.name === server)?.reason ?? ''),
        `${server} reason ${reason}`,
      )
      proxyOf[server].setMode({kind: 'pass'})
      await whenServed(() => connectedTo(server), `${server} back after ${fault.kind}`)
      await expect(registry.callTool(`mcp__${server}__add`, {a: 2, b: 2}, CALL)).resolves.toEqual({sum: 4})
    }
  })

  it('many losses and reconnections on every transport leave no descriptor or process behind', async () => {
    const [web, stream] = await Promise.all([
      startFaultProxy(new URL(http.url).origin),
      startFaultProxy(new URL(sse.url).origin),
    ])
    proxies.push(web, stream)
    const local = new ToolRegistry(
      {
        servers: [
          stdioFixture('cycled', []),
          {name: 'web', transport: 'http', url: web.url('/mcp'), headers: {}},
          {name: 'stream', transport: 'sse', url: stream.url('/sse'), headers: {}},
        ],
      },
      {logger: silentLogger, backoff: {initialMs: 20, maxMs: 50}},
    )
    const servers = ['cycled', 'web', 'stream']
    const connected = (name: string) => local.serverStatus().find((s) => s.name === name)?.connected === true
    try {
      local.start()
      await whenRegistry(local, () => servers.every((name) => connected(name)), 'connected', 30_000)
      const before = openFds()
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        await local.callTool('mcp__cycled__crash', {}, CALL).catch(() => {})
        web.setMode({kind: 'drop'})
        stream.setMode({kind: 'drop'})
        await local.callTool('mcp__web__add', {a: 1, b: 1}, CALL).catch(() => {})
        await whenRegistry(
          local,
          () => !servers.some((name) => connected(name)),
          `all down (${cycle})`,
          15_000,
        )
        web.setMode({kind: 'pass'})
        stream.setMode({kind: 'pass'})
        await whenRegistry(
          local,
          () => servers.every((name) => connected(name)),
          `all back (${cycle})`,
          15_000,
        )
      }
      expect(openFds()).toBeLessThanOrEqual(before + 4)
      await expect.poll(() => fixtureProcesses('cycled').length === 1, {timeout: 5000}).toBe(true)
    } finally {
      await local.close()
    }
    await expect.poll(() => fixtureProcesses('cycled').length === 0, {timeout: 5000}).toBe(true)
  }, 120_000)

  it('a server that hangs on connect is killed at the connect bound and comes back once it answers', async () => {
    closeGate('stuck')
    const local = new ToolRegistry(
      {servers: [gatedFixture('stuck', 'hang')]},
      // Long enough for the fixture to start on a loaded machine once it is let through.
      {logger: silentLogger, connectTimeoutMs: 8000, backoff: {initialMs: 50, maxMs: 200}},
    )
    try {
      local.start()
      await local.waitForInitialConnections(15_000)
      expect(local.unavailableServers()).toEqual([
        {name: 'stuck', reason: 'no answer within 8s (connect timeout)'},
      ])
      const sleeping = () =>
        descendants(process.pid).filter((pid) => commandLine(pid).startsWith('sleep 600'))
      openGate('stuck')
      await whenRegistry(local, () => local.listTools().length > 0, 'stuck back', 20_000)
      await expect(local.callTool('mcp__stuck__add', {a: 1, b: 2}, CALL)).resolves.toEqual({sum: 3})
      // Every hung attempt was killed, not left behind.
      await expect.poll(() => sleeping().length === 0, {timeout: 5000}).toBe(true)
    } finally {
      await local.close()
      openGate('stuck')
    }
  })
})

const root = (fixture: HttpFixture) => new URL(fixture.url).origin
const openFds = () => readdirSync('/proc/self/fd').length

/** The stdio fixtures named `name` started by this process (a registry's servers). */
function fixtureProcesses(name: string): number[] {
  return descendants(process.pid).filter(
    (pid) => commandLine(pid).startsWith(process.execPath) && commandLine(pid).includes(`--name ${name}`),
  )
}
