// The downstream side against real servers: the fixture over stdio, streamable HTTP and SSE, plus a
// tiny hand-written stdio server that paginates tools/list.
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it, vi} from 'vitest'

import type {ServerConfig} from '../../src/config/schema.js'
import type {ToolRegistryOptions} from '../../src/downstream/registry-options.js'

import {ToolRegistry} from '../../src/downstream/registry.js'
import {ToolError} from '../../src/downstream/types.js'
import {silentLogger} from '../../src/shared/log.js'
import {fixtureCommand, type HttpFixture, startHttpFixture} from '../fixtures/start-fixture.js'
import {whenRegistry} from '../helpers/registry.js'

const CALL = {timeoutMs: 10_000, maxResultBytes: 1_000_000}
const FAST_RETRY: ToolRegistryOptions = {logger: silentLogger, backoff: {initialMs: 50, maxMs: 400}}
const SECRET_NAME = 'PTC_MCP_TEST_SECRET'

let scratch: string
const registries: ToolRegistry[] = []

function stdioServer(name: string, flags: string[] = [], extra: Partial<ServerConfig> = {}): ServerConfig {
  const {command, args} = fixtureCommand(flags)
  return {name, transport: 'stdio', command, args, env: {}, ...extra} as ServerConfig
}

function remoteServer(name: string, transport: 'http' | 'sse', url: string): ServerConfig {
  return {name, transport, url, headers: {}}
}

function openRegistry(
  servers: ServerConfig[],
  options: ToolRegistryOptions = {},
  tools: {allow?: string[]; block?: string[]} = {},
): ToolRegistry {
  const registry = new ToolRegistry({servers, tools}, {...FAST_RETRY, ...options})
  registries.push(registry)
  registry.start()
  return registry
}

function names(registry: ToolRegistry): string[] {
  return registry.listTools().map((t) => t.name)
}

function status(registry: ToolRegistry, server: string) {
  const found = registry.serverStatus().find((s) => s.name === server)
  if (!found) throw new Error(`no status for ${server}`)
  return found
}

async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    (value) => new Error(`expected a ToolError, got ${JSON.stringify(value)}`),
    (error_: unknown) => error_,
  )
  expect(error).toBeInstanceOf(ToolError)
  return error as ToolError
}

/** A port nothing listens on: bound, then released. */
async function refusedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  const {port} = server.address() as {port: number}
  await new Promise<void>((resolve) => {
    server.close(() => resolve())
  })
  return port
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Wraps the stdio fixture in `sh -c 'echo $$ > file; exec ...'`, so the test learns the server's pid. */
function stdioServerWithPid(name: string, pidFile: string, flags: string[] = []): ServerConfig {
  const {command, args} = fixtureCommand(flags)
  const quoted = [command, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ')
  return {
    name,
    transport: 'stdio',
    command: 'sh',
    args: ['-c', `echo $$ > '${pidFile}'; exec ${quoted}`],
    env: {},
  }
}

/** Waits (bounded) for a file the server writes as it starts. */
async function waitForFile(path: string, timeoutMs = 10_000): Promise<void> {
  await vi.waitFor(
    () => expect(existsSync(path) && readFileSync(path, 'utf8').trim(), `${path} not written`).toBeTruthy(),
    {timeout: timeoutMs, interval: 20},
  )
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'ptc-downstream-'))
})

afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()))
})

afterAll(() => {
  rmSync(scratch, {recursive: true, force: true})
})

describe('one registry over stdio, HTTP and SSE', () => {
  let http: HttpFixture
  let sse: HttpFixture
  let registry: ToolRegistry
  let counterFile: string

  beforeAll(async () => {
    const started = await Promise.all([
      startHttpFixture({transport: 'http'}),
      startHttpFixture({transport: 'sse'}),
    ])
    http = started[0]
    sse = started[1]
    counterFile = join(scratch, 'shared-calls.txt')
    writeFileSync(counterFile, '')
    // Set before the servers start: a stdio server must not inherit it.
    process.env[SECRET_NAME] = 'hunter2'
    registry = new ToolRegistry(
      {
        servers: [
          stdioServer('local-stdio', ['--counter-file', counterFile], {
            env: {FROM_CONFIG: 'yes'},
          } as Partial<ServerConfig>),
          remoteServer('web', 'http', http.url),
          remoteServer('legacy', 'sse', sse.url),
        ],
      },
      FAST_RETRY,
    )
    registry.start()
    await registry.waitForInitialConnections(25_000)
  })

  afterAll(async () => {
    delete process.env[SECRET_NAME]
    await registry?.close()
    await Promise.all([http?.stop(), sse?.stop()])
  })

  it('lists the namespaced tools of all three servers, sorted', () => {
    expect(registry.unavailableServers()).toEqual([])
    const listed = names(registry)
    expect(listed).toEqual([...listed].sort())
    for (const server of ['local_stdio', 'web', 'legacy']) {
      expect(listed).toContain(`mcp__${server}__add`)
      expect(listed).toContain(`mcp__${server}__trigger_list_changed`)
    }
    expect(registry.getTool('mcp__local_stdio__add')).toMatchObject({server: 'local-stdio', tool: 'add'})
    expect(registry.serverStatus().map((s) => [s.name, s.transport, s.connected, s.attempts])).toEqual([
      ['local-stdio', 'stdio', true, 0],
      ['web', 'http', true, 0],
      ['legacy', 'sse', true, 0],
    ])
    for (const s of registry.serverStatus())
      expect(s.tools).toBe(listed.filter((n) => n.startsWith(`mcp__${s.name.replace('-', '_')}__`)).length)
  })

  it('calls tools on every transport and parses the results', async () => {
    for (const server of ['local_stdio', 'web', 'legacy']) {
      await expect(registry.callTool(`mcp__${server}__add`, {a: 1, b: 2}, CALL)).resolves.toEqual({sum: 3})
      await expect(registry.callTool(`mcp__${server}__echo`, {text: 'hi', upper: true}, CALL)).resolves.toBe(
        'HI',
      )
    }
  })

  it('refuses sampling, elicitation and roots requests from a server at once, with a clear error', async () => {
    for (const kind of ['sampling', 'elicitation', 'roots']) {
      const answer = await registry.callTool('mcp__local_stdio__sample', {kind}, CALL)
      expect(answer).toMatch(/^refused: /)
      expect(answer).toContain(`ptc-mcp does not support ${kind}`)
    }
    for (const server of ['web', 'legacy']) {
      await expect(registry.callTool(`mcp__${server}__sample`, {kind: 'sampling'}, CALL)).resolves.toMatch(
        /^refused: .*ptc-mcp does not support sampling/,
      )
    }
  })

  it('gives a stdio server only a minimal environment plus its configured env', async () => {
    expect(process.env[SECRET_NAME]).toBe('hunter2')
    await expect(registry.callTool('mcp__local_stdio__env', {name: SECRET_NAME}, CALL)).resolves.toBeNull()
    await expect(registry.callTool('mcp__local_stdio__env', {name: 'FROM_CONFIG'}, CALL)).resolves.toBe('yes')
    await expect(registry.callTool('mcp__local_stdio__env', {name: 'PATH'}, CALL)).resolves.toEqual(
      expect.any(String),
    )
  })

  it('turns isError results and exceptions inside the server into ToolError without reconnecting', async () => {
    for (const server of ['local_stdio', 'web', 'legacy']) {
      const before = status(registry, server === 'local_stdio' ? 'local-stdio' : server)
      const {calls: first} = (await registry.callTool(`mcp__${server}__call_count`, {}, CALL)) as {
        calls: number
      }

      expect(
        (await toolError(registry.callTool(`mcp__${server}__is_error`, {message: 'no such ticker'}, CALL)))
          .message,
      ).toBe('no such ticker')
      expect((await toolError(registry.callTool(`mcp__${server}__throws`, {}, CALL))).message).toContain(
        'boom from fixture',
      )
      expect(
        (await toolError(registry.callTool(`mcp__${server}__bad_structured`, {}, CALL))).message,
      ).toMatch(/does not match its outputSchema: .*'count': must be integer/)

      // Same process, same connection: the server's own call counter kept counting.
      await expect(registry.callTool(`mcp__${server}__call_count`, {}, CALL)).resolves.toEqual({
        calls: first + 4,
      })
      const after = status(registry, before.name)
      expect(after).toMatchObject({connected: true, attempts: 0, since: before.since})
    }
  })

  it('validates arguments before sending: nothing reaches the server', async () => {
    const before = readFileSync(counterFile, 'utf8')
    const wrongType = await toolError(registry.callTool('mcp__local_stdio__add', {a: 'one', b: 2}, CALL))
    expect(wrongType.message).toBe(
      'invalid arguments for mcp__local_stdio__add: argument \'a\': must be number\n  await mcp__local_stdio__add(*, a: float, b: float) -> {"sum": float}',
    )
    const missing = await toolError(registry.callTool('mcp__local_stdio__add', {a: 1}, CALL))
    expect(missing.message).toContain("missing required argument 'b'")
    const nested = await toolError(
      registry.callTool(
        'mcp__local_stdio__structured',
        {ticker: 'X', limit: 2.5, fields: ['revenue', 'loss']},
        CALL,
      ),
    )
    expect(nested.message).toContain("argument 'limit': must be integer")
    expect(nested.message).toContain('argument \'fields[1]\': must be one of "revenue", "profit"')
    expect(readFileSync(counterFile, 'utf8')).toBe(before)

    await registry.callTool('mcp__local_stdio__echo', {text: 'sent'}, CALL)
    expect(readFileSync(counterFile, 'utf8')).toBe(`${before}echo\n`)
  })

  it('rejects a result over max_tool_result_bytes, saying how to ask for less', async () => {
    for (const server of ['local_stdio', 'web', 'legacy']) {
      const error = await toolError(
        registry.callTool(`mcp__${server}__big`, {bytes: 5000}, {...CALL, maxResultBytes: 4096}),
      )
      expect(error.message).toMatch(/over the 4 KiB limit/)
      expect(error.message).toContain('request less data: narrower dates, a limit, or a filter')
      await expect(
        registry.callTool(`mcp__${server}__big`, {bytes: 4000}, {...CALL, maxResultBytes: 4096}),
      ).resolves.toHaveLength(4000)
    }
  })

  it('carries a 12 MB result from a stdio server (above the SDK default buffer of 10 MB)', async () => {
    const bytes = 12 * 1024 * 1024
    const value = await registry.callTool(
      'mcp__local_stdio__big',
      {bytes},
      {...CALL, maxResultBytes: 16 * 1024 * 1024},
    )
    expect(value).toHaveLength(bytes)
    expect(status(registry, 'local-stdio')).toMatchObject({connected: true, attempts: 0})
  })

  it('names unknown tools with suggestions, and times calls out without dropping the connection', async () => {
    const unknown = await toolError(registry.callTool('mcp__web__ad', {}, CALL))
    expect(unknown.message).toMatch(/^Unknown tool 'mcp__web__ad'\. Did you mean .*mcp__web__add/)

    const timedOut = await toolError(registry.callTool('mcp__web__hang', {}, {...CALL, timeoutMs: 300}))
    expect(timedOut.message).toBe(
      'tool call timed out after 0.3s (execution.tool_call_timeout_seconds): ask for less per call, or make fewer calls at once',
    )
    const controller = new AbortController()
    const pending = registry.callTool('mcp__local_stdio__hang', {}, {...CALL, signal: controller.signal})
    controller.abort()
    expect((await toolError(pending)).message).toBe('tool call cancelled')
    await expect(registry.callTool('mcp__web__add', {a: 2, b: 2}, CALL)).resolves.toEqual({sum: 4})
    expect(registry.unavailableServers()).toEqual([])
  })
})

describe('allow and block', () => {
  let http: HttpFixture

  beforeAll(async () => {
    http = await startHttpFixture({transport: 'http'})
  })

  afterAll(async () => {
    await http?.stop()
  })

  it('lists and calls only allowed tools', async () => {
    const registry = openRegistry(
      [remoteServer('web', 'http', http.url)],
      {},
      {allow: ['mcp__web__add', 'mcp__web__e*']},
    )
    await registry.waitForInitialConnections(15_000)
    expect(names(registry)).toEqual(['mcp__web__add', 'mcp__web__echo', 'mcp__web__empty', 'mcp__web__env'])
    expect(registry.getTool('mcp__web__big')).toBeUndefined()
    const error = await toolError(registry.callTool('mcp__web__big', {bytes: 1}, CALL))
    expect(error.message).toMatch(/^Unknown tool 'mcp__web__big'/)
    expect(status(registry, 'web').tools).toBe(4)
  })

  it('hides and refuses blocked tools', async () => {
    const registry = openRegistry(
      [remoteServer('web', 'http', http.url)],
      {},
      {block: ['mcp__web__crash', 'mcp__web__*_structured']},
    )
    await registry.waitForInitialConnections(15_000)
    const listed = names(registry)
    expect(listed).toContain('mcp__web__add')
    expect(listed).toContain('mcp__web__structured')
    expect(listed).not.toContain('mcp__web__crash')
    expect(listed).not.toContain('mcp__web__bad_structured')
    await toolError(registry.callTool('mcp__web__crash', {}, CALL))
  })
})

describe('losing and regaining a server', () => {
  it("a crashed stdio server's tools disappear, the reason is given, and it comes back by itself", async () => {
    const registry = openRegistry([stdioServer('fx')])
    await registry.waitForInitialConnections(20_000)
    expect(names(registry)).toContain('mcp__fx__add')

    const seen: {listed: number; unavailable: {name: string; reason: string}[]}[] = []
    registry.onChange(() =>
      seen.push({listed: registry.listTools().length, unavailable: registry.unavailableServers()}),
    )

    const crash = await toolError(registry.callTool('mcp__fx__crash', {}, CALL))
    expect(crash.message).toMatch(/^lost the connection to server 'fx' during the call/)

    // While it is down: no tools and a reason; a call made meanwhile waits for the reconnection (SPEC §5).
    const down = seen.find((s) => s.unavailable.length > 0)
    expect(down).toEqual({listed: 0, unavailable: [{name: 'fx', reason: 'server process exited'}]})
    if (!status(registry, 'fx').connected) {
      await expect(registry.callTool('mcp__fx__add', {a: 1, b: 1}, CALL)).resolves.toEqual({sum: 2})
    }

    await whenRegistry(registry, () => status(registry, 'fx').connected, 'reconnected')
    expect(names(registry)).toContain('mcp__fx__add')
    expect(status(registry, 'fx')).toMatchObject({
      connected: true,
      attempts: 0,
      lastError: 'server process exited',
    })
    await expect(registry.callTool('mcp__fx__add', {a: 1, b: 1}, CALL)).resolves.toEqual({sum: 2})
  })

  it('a killed stdio server is noticed and restarted; closing leaves no process behind', async () => {
    const pidFile = join(scratch, 'killed.pid')
    const registry = openRegistry([stdioServerWithPid('fx', pidFile)])
    await registry.waitForInitialConnections(20_000)
    const firstPid = Number(readFileSync(pidFile, 'utf8'))
    expect(isAlive(firstPid)).toBe(true)

    const lost = whenRegistry(registry, () => !status(registry, 'fx').connected, 'disconnected')
    process.kill(firstPid, 'SIGKILL')
    await lost
    expect(registry.unavailableServers()).toEqual([{name: 'fx', reason: 'server process exited'}])
    await whenRegistry(registry, () => status(registry, 'fx').connected, 'reconnected')

    const secondPid = Number(readFileSync(pidFile, 'utf8'))
    expect(secondPid).not.toBe(firstPid)
    expect(isAlive(secondPid)).toBe(true)
    await registry.close()
    expect(isAlive(secondPid)).toBe(false)
  })

  it('a lost HTTP server is noticed, and reconnected once it is back', async () => {
    const first = await startHttpFixture({transport: 'http'})
    let second: HttpFixture | undefined
    try {
      const registry = openRegistry([remoteServer('web', 'http', first.url)])
      await registry.waitForInitialConnections(15_000)
      const crash = await toolError(registry.callTool('mcp__web__crash', {}, CALL))
      expect(crash.message).toMatch(/server 'web'/)
      await whenRegistry(registry, () => !status(registry, 'web').connected, 'disconnected')
      expect(names(registry)).toEqual([])
      expect(registry.unavailableServers()[0]?.reason).toMatch(/^connection lost: /)

      // The same URL answers again: a new process on the same port.
      second = await startHttpFixture({transport: 'http', args: ['--port', String(first.port)]})
      await whenRegistry(registry, () => status(registry, 'web').connected, 'reconnected')
      await expect(registry.callTool('mcp__web__add', {a: 1, b: 2}, CALL)).resolves.toEqual({sum: 3})
    } finally {
      await Promise.all([first.stop(), second?.stop()])
    }
  })
})

describe('servers that cannot be reached', () => {
  it('a missing command and a refused URL are reported with reasons and hold up nobody', async () => {
    const url = `http://127.0.0.1:${await refusedPort()}/mcp`
    const registry = openRegistry([
      {name: 'missing', transport: 'stdio', command: 'ptc-mcp-no-such-command', args: [], env: {}},
      remoteServer('refused', 'http', url),
      remoteServer('refused-sse', 'sse', url.replace('/mcp', '/sse')),
      stdioServer('good'),
    ])
    await whenRegistry(registry, () => status(registry, 'good').connected, 'good connected')
    expect(names(registry).every((n) => n.startsWith('mcp__good__'))).toBe(true)
    await registry.waitForInitialConnections(15_000)

    const reasons = Object.fromEntries(registry.unavailableServers().map((s) => [s.name, s.reason]))
    expect(Object.keys(reasons).sort()).toEqual(['missing', 'refused', 'refused-sse'])
    expect(reasons.missing).toBe('command not found: ptc-mcp-no-such-command')
    expect(reasons.refused).toMatch(/ECONNREFUSED|fetch failed/)
    expect(reasons['refused-sse']).toMatch(/ECONNREFUSED|fetch failed/)
    const error = await toolError(registry.callTool('mcp__missing__anything', {}, CALL))
    expect(error.message).toBe(
      "server 'missing' is not connected (command not found: ptc-mcp-no-such-command)",
    )

    // They keep retrying on their own while the good server serves calls.
    await whenRegistry(registry, () => status(registry, 'refused').attempts >= 3, 'retried')
    await expect(registry.callTool('mcp__good__add', {a: 2, b: 3}, CALL)).resolves.toEqual({sum: 5})
  })

  it('reports servers still on their first attempt as "connecting", and closing stops them', async () => {
    const pidFile = join(scratch, 'slow.pid')
    const registry = openRegistry([stdioServerWithPid('slow', pidFile, ['--delay-start-ms', '60000'])], {
      connectTimeoutMs: 60_000,
    })
    expect(registry.unavailableServers()).toEqual([
      {name: 'slow', reason: 'connecting', starting: {forMs: expect.any(Number), upToMs: 60_000}},
    ])
    await registry.waitForInitialConnections(50)
    expect(registry.listTools()).toEqual([])
    expect(status(registry, 'slow')).toMatchObject({connected: false, attempts: 1, lastError: null})

    await waitForFile(pidFile)
    const pid = Number(readFileSync(pidFile, 'utf8'))
    await registry.close()
    expect(isAlive(pid)).toBe(false)
  })

  it('bounds a connection attempt, kills the hung server, and reports the timeout', async () => {
    const pidFile = join(scratch, 'hung.pid')
    const registry = openRegistry([stdioServerWithPid('hung', pidFile, ['--hang-start'])], {
      connectTimeoutMs: 1000,
      backoff: {initialMs: 60_000, maxMs: 60_000},
    })
    await registry.waitForInitialConnections(10_000)
    expect(registry.unavailableServers()).toEqual([
      {name: 'hung', reason: 'no answer within 1s (connect timeout)'},
    ])
    const pid = Number(readFileSync(pidFile, 'utf8'))
    await registry.close()
    expect(isAlive(pid)).toBe(false)
  })

  it('reports a server that exits at startup with its last stderr line', async () => {
    const registry = openRegistry([stdioServer('quits', ['--exit-at-start'])])
    await registry.waitForInitialConnections(15_000)
    expect(registry.unavailableServers()[0]?.reason).toMatch(
      /^server process exited during startup; stderr: .*exiting at start/,
    )
  })

  it('reports an HTTP error status', async () => {
    const http = await startHttpFixture({transport: 'http', args: ['--http-status', '503']})
    try {
      const registry = openRegistry([remoteServer('broken', 'http', http.url)])
      await registry.waitForInitialConnections(15_000)
      expect(registry.unavailableServers()[0]?.reason).toMatch(/503/)
    } finally {
      await http.stop()
    }
  })
})

describe('tool lists', () => {
  it('notifications/tools/list_changed refreshes the tools', async () => {
    const registry = openRegistry([stdioServer('fx')])
    await registry.waitForInitialConnections(20_000)
    expect(names(registry)).not.toContain('mcp__fx__dynamic_0')

    const added = whenRegistry(
      registry,
      () => names(registry).includes('mcp__fx__dynamic_0'),
      'listing dynamic_0',
    )
    await registry.callTool('mcp__fx__trigger_list_changed', {}, CALL)
    await added
    await expect(registry.callTool('mcp__fx__dynamic_0', {}, CALL)).resolves.toBe('hello from dynamic_0')

    const removed = whenRegistry(registry, () => !names(registry).includes('mcp__fx__echo'), 'without echo')
    await registry.callTool('mcp__fx__trigger_list_changed', {add: false, remove: 'echo'}, CALL)
    await removed
    expect(status(registry, 'fx')).toMatchObject({connected: true, attempts: 0})
  })

  it('lists every tool of a large server', async () => {
    const registry = openRegistry([stdioServer('many', ['--extra-tools', '250'])])
    await registry.waitForInitialConnections(20_000)
    const listed = names(registry).filter((n) => n.startsWith('mcp__many__extra_'))
    expect(listed).toHaveLength(250)
  })

  it('follows nextCursor through every page of tools/list', async () => {
    const script = join(scratch, 'paginating-server.mjs')
    writeFileSync(script, PAGINATING_SERVER)
    const registry = openRegistry([
      {name: 'paged', transport: 'stdio', command: process.execPath, args: [script], env: {}},
    ])
    await registry.waitForInitialConnections(15_000)
    expect(names(registry)).toEqual([
      'mcp__paged__t0',
      'mcp__paged__t1',
      'mcp__paged__t2',
      'mcp__paged__t3',
      'mcp__paged__t4',
    ])
  })

  it('keeps the first of two tools whose names normalise alike and reports the clash', async () => {
    const script = join(scratch, 'clashing-server.mjs')
    writeFileSync(
      script,
      PAGINATING_SERVER.replace(
        "const NAMES = ['t0', 't1', 't2', 't3', 't4']",
        "const NAMES = ['get-data', 'get_data', 'other']",
      ),
    )
    const registry = openRegistry([
      {name: 'clash', transport: 'stdio', command: process.execPath, args: [script], env: {}},
    ])
    await registry.waitForInitialConnections(15_000)
    expect(names(registry)).toEqual(['mcp__clash__get_data', 'mcp__clash__other'])
    expect(registry.getTool('mcp__clash__get_data')?.tool).toBe('get-data')
    expect(status(registry, 'clash').warnings).toEqual([
      "tools 'get-data', 'get_data' all become mcp__clash__get_data; keeping 'get-data', ignoring 'get_data'",
    ])
  })
})

/** A minimal stdio MCP server (no SDK) whose tools/list answers two tools per page. */
const PAGINATING_SERVER = `
import {createInterface} from 'node:readline'
const NAMES = ['t0', 't1', 't2', 't3', 't4']
const send = (message) => process.stdout.write(JSON.stringify({jsonrpc: '2.0', ...message}) + '\\n')
createInterface({input: process.stdin}).on('line', (line) => {
  const {id, method, params} = JSON.parse(line)
  if (id === undefined) return
  if (method === 'initialize') {
    send({id, result: {protocolVersion: params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'paged', version: '1'}}})
  } else if (method === 'tools/list') {
    const start = params?.cursor ? Number(params.cursor) : 0
    const tools = NAMES.slice(start, start + 2).map((name) => ({name, inputSchema: {type: 'object'}}))
    send({id, result: {tools, ...(start + 2 < NAMES.length ? {nextCursor: String(start + 2)} : {})}})
  } else if (method === 'ping') {
    send({id, result: {}})
  } else {
    send({id, error: {code: -32601, message: 'Method not found'}})
  }
})
`
