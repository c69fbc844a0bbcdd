// @tier sandbox
import {runCommand} from '@oclif/test'
// The surface around the sandbox, tried the way the issue-12 findings broke it: secrets from the
// config reaching programs and logs, one oversized result tearing down a shared connection, a
// block rule in the server's own spelling matching nothing, and program output driving the
// user's terminal. Real servers throughout: the fixture, @modelcontextprotocol/server-everything
// from npm, an HTTP server answering 401, and commands that fail the way real ones do.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import type {DoctorResult} from '../../src/commands/doctor.js'
import type {ListResult} from '../../src/commands/list.js'

import {fixtureCommand, type HttpFixture, startHttpFixture} from '../fixtures/start-fixture.js'
import {ROOT, withExitCode} from '../helpers/command-exit.js'
import {type RawServe, resultText, startRawServe, toolResult} from '../helpers/json-rpc.js'
import {commandLine, descendants} from '../helpers/processes.js'
import {
  execute,
  expectCleanShutdown,
  listCallable,
  serves,
  waitForConnected,
  waitForListing,
} from '../helpers/serve-session.js'
import {BIN, prepareServe, type ServeSetup} from '../helpers/serve.js'
import {testDependency} from '../helpers/test-deps.js'

const EVERYTHING = testDependency('@modelcontextprotocol/server-everything/dist/index.js')

/** server-everything, printing the key it was started with on stderr first (as chatty servers do). */
function everything(secretVariable: string): Record<string, unknown> {
  return {
    command: process.execPath,
    args: [
      '--input-type=module',
      '-e',
      `console.error('connecting with key ' + process.argv[1]); await import(${JSON.stringify(EVERYTHING)})`,
      `\${${secretVariable}}`,
    ],
    env: {EVERYTHING_SECRET: `\${${secretVariable}}`},
  }
}

/** Peak resident memory of a process, in bytes. */
function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match?.[1]) * 1024
}

describe('secrets from the config never reach programs, the model or the log', () => {
  const SECRETS = {
    STDERR_TOKEN: 'tok-3f9a1c77e2b4d5',
    PRIVATE_DIR: '/opt/priv-8c1e2d9f',
    MODULE_DIR: '/srv/mod-77ab12cd',
    HTTP_TOKEN: 'h77-bearer-q1w2e3r4',
    // Quotes and a backslash: the 401 body quotes it JSON-escaped.
    API_KEY: String.raw`ak"7\q-0091x`,
    EVERYTHING_KEY: 'ev-secret-5d41402abc4b2a76',
    FX_TOKEN: 'fx-credential-0a1b2c3d',
  }
  const SERVERS = ['stderr-token', 'private-cmd', 'node-module', 'api-401', 'everything', 'fx']
  const FAILING = ['stderr-token', 'private-cmd', 'node-module', 'api-401']
  let setup: ServeSetup
  let serve: RawServe
  let http: Server

  beforeAll(async () => {
    // A real HTTP endpoint that refuses the credentials and, as many do, quotes them back.
    http = createServer((request, response) => {
      response.writeHead(401, {'content-type': 'application/json'})
      response.end(
        JSON.stringify({
          error: 'invalid credentials',
          authorization: request.headers.authorization,
          key: request.headers['x-api-key'],
        }),
      )
    })
    await new Promise<void>((resolve) => {
      http.listen(0, '127.0.0.1', resolve)
    })
    const {port} = http.address() as {port: number}
    setup = prepareServe({
      servers: [
        {
          name: 'stderr-token',
          command: process.execPath,
          args: ['-e', "console.error('fatal: token rejected: ' + process.env.API_TOKEN); process.exit(1)"],
          env: {API_TOKEN: '${STDERR_TOKEN}'},
        },
        {name: 'private-cmd', command: '${PRIVATE_DIR}/bin/mcp-server'},
        {name: 'node-module', command: process.execPath, args: ['${MODULE_DIR}/server.js']},
        {
          name: 'api-401',
          transport: 'http',
          url: `http://127.0.0.1:${port}/mcp`,
          headers: {Authorization: 'Bearer ${HTTP_TOKEN}', 'X-Api-Key': '${API_KEY}'},
        },
        {name: 'everything', ...everything('EVERYTHING_KEY')},
        {name: 'fx', ...fixtureCommand(['--name', 'fx']), env: {FX_TOKEN: '${FX_TOKEN}'}},
      ],
      tools: {block: ['mcp__everything__get-env']},
      execution: {timeout_seconds: 30, warm_pool: 0},
    })
    setup.env = {...setup.env, ...SECRETS, PTC_MCP_LOG_LEVEL: 'debug'}
    serve = await startRawServe(setup)
    await waitForListing(
      serve,
      SERVERS,
      (l) =>
        serves(l, 'fx') &&
        l.names.includes('mcp__everything__echo') &&
        FAILING.every(
          (name) => l.unavailable[name] !== undefined && !l.unavailable[name].startsWith('starting for'),
        ),
      {what: 'every server through its first attempt', timeoutMs: 40_000},
    )
  }, 60_000)

  afterAll(async () => {
    if (serve) await expectCleanShutdown(serve, setup)
    setup?.cleanup()
    await new Promise((resolve) => {
      http?.close(resolve)
    })
  })

  const reasons = async () => (await listCallable(serve, SERVERS)).unavailable

  it("a failed server's stderr line quoting its token: the token is redacted from the reason", async () => {
    const reason = (await reasons())['stderr-token']
    expect(reason).toMatch(/stderr: fatal: token rejected: \[redacted\]$/)
  })

  it('an expanded command path: the expanded part is redacted', async () => {
    expect((await reasons())['private-cmd']).toBe('command not found: [redacted]/bin/mcp-server')
  })

  it('a node error echoing an argument (Cannot find module <path>): the expanded part is redacted', async () => {
    expect((await reasons())['node-module']).toMatch(
      /^server process exited during startup.*Cannot find module '\[redacted\]\/server\.js'/,
    )
    expect(serve.stderr()).toContain(
      "[ptc-mcp:downstream:node-module] info: Error: Cannot find module '[redacted]/server.js'",
    )
  })

  it('an HTTP 401 body quoting the credentials, one of them JSON-escaped: both are redacted', async () => {
    const reason = (await reasons())['api-401']
    expect(reason).toMatch(/^HTTP 401/)
    // The whole header value is a secret; its token alone would be too.
    expect(reason).toContain('"authorization":"[redacted]"')
    expect(reason).toContain('"key":"[redacted]"')
  })

  it("server_status(), list_callable_tools() and ToolError text in a program, and a tool error quoting the server's credential", async () => {
    const run = await execute(
      serve,
      [
        'status = {s["name"]: s["lastError"] for s in await server_status()}',
        'print(status["stderr-token"])',
        'print(status["api-401"])',
        'print(len(await list_callable_tools()) > 5)',
        'for call in (lambda: mcp__private_cmd__anything(), lambda: mcp__fx__env(name="FX_TOKEN", as_error=True)):',
        '    try:',
        '        await call()',
        '    except ToolError as e:',
        '        print("ToolError:", e)',
      ].join('\n'),
    )
    expect(run.structured.ok, run.text).toBe(true)
    const lines = run.output.trim().split('\n')
    expect(lines[0]).toMatch(/fatal: token rejected: \[redacted\]$/)
    expect(lines[1]).toContain('"authorization":"[redacted]","key":"[redacted]"')
    expect(lines[2]).toBe('True')
    expect(lines[3]).toBe(
      "ToolError: server 'private-cmd' is not connected (command not found: [redacted]/bin/mcp-server)",
    )
    expect(lines[4]).toBe('ToolError: credential rejected: [redacted]')
  })

  it('stderr lines of a connected server reach the log redacted', async () => {
    expect(serve.stderr()).toContain('[ptc-mcp:downstream:everything] info: connecting with key [redacted]')
    expect(serve.stderr()).toMatch(
      /\[ptc-mcp:downstream:stderr-token\] info: fatal: token rejected: \[redacted\]/,
    )
  })

  it('no secret, raw, JSON-escaped or URL-encoded, in any message serve sent or any line it logged', async () => {
    // Everything a program or the model can read, once more, on top of what the tests above did.
    await serve.callTool('inspect_tool', {tool_name: 'mcp__fx__env'})
    await serve.callTool('list_callable_tools', {})
    await execute(
      serve,
      'print(await server_status())\nprint(await inspect_tool(tool_name="mcp__everything__echo"))',
    )
    const seen = [JSON.stringify(serve.lines.all), ...serve.lines.invalid, serve.stderr()].join('\n')
    expect(serve.lines.all.length).toBeGreaterThan(5)
    expect(seen).toContain('[redacted]')
    for (const [name, secret] of Object.entries(SECRETS)) {
      for (const form of new Set([encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), secret])) {
        expect(seen.includes(form), `${name} as ${form}`).toBe(false)
        // The transcript is JSON: a secret in it is escaped once more.
        expect(seen.includes(JSON.stringify(form).slice(1, -1)), `${name} as ${form}, escaped`).toBe(false)
      }
    }
  })
})

describe('tools.allow / tools.block are normalised like names (real server-everything)', () => {
  const SECRET = 'ev-secret-9e107d9d372bb682'
  let dir: string

  const config = (tools: Record<string, unknown>, name = 'config.yaml') => {
    const path = join(dir, name)
    writeFileSync(
      path,
      stringify({
        servers: [{name: 'everything', ...everything('EV_SECRET')}],
        tools,
        execution: {warm_pool: 0},
      }),
    )
    return path
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-rules-test-'))
    process.env.EV_SECRET = SECRET
  })

  afterAll(() => {
    delete process.env.EV_SECRET
    rmSync(dir, {force: true, recursive: true})
  })

  it("a block rule in the server's own spelling (get-env) hides the tool from programs; the model is told only that it does not exist", async () => {
    const setup = prepareServe({
      servers: [{name: 'everything', ...everything('EV_SECRET')}],
      tools: {block: ['mcp__everything__get-env', 'mcp__everything__no-such-tool']},
      execution: {warm_pool: 0},
    })
    setup.env = {...setup.env, EV_SECRET: SECRET}
    const serve = await startRawServe(setup)
    try {
      const listing = await waitForListing(
        serve,
        ['everything'],
        (l) => l.names.includes('mcp__everything__echo'),
        {
          what: 'everything connected',
          timeoutMs: 30_000,
        },
      )
      expect(listing.names).toContain('mcp__everything__get_sum')
      expect(listing.names).not.toContain('mcp__everything__get_env')
      const run = await execute(
        serve,
        [
          'for name in ("mcp__everything__get_env",):',
          '    try:',
          '        print(await globals()[name]())',
          '    except Exception as e:',
          '        print(type(e).__name__, e)',
          'try:',
          '    await mcp__everything__get_env()',
          'except Exception as e:',
          '    print(type(e).__name__, e)',
          'print(await inspect_tool(tool_name="mcp__everything__get_env"))',
        ].join('\n'),
      )
      expect(run.text).not.toContain(SECRET)
      expect(run.text).not.toMatch(/block|hidden|rule/i)
      // Every call failed.
      expect(run.structured.trace).toMatch(/^\[tool calls: (\d+), \1 failed;/)
      const inspected = toolResult(
        await serve.callTool('inspect_tool', {tool_name: 'mcp__everything__get_env'}),
      )
      expect(inspected.isError).toBe(true)
      expect(
        resultText(await serve.callTool('inspect_tool', {tool_name: 'mcp__everything__get_env'})),
      ).toMatch(/^Unknown tool 'mcp__everything__get_env'/)
      // The rule that matches nothing is warned about, once, with the pattern as written.
      await expect.poll(() => serve.stderr(), {timeout: 10_000}).toMatch(/matches no tool/)
      const warnings = serve.stderr().match(/.*matches no tool.*/g) ?? []
      expect(warnings).toEqual([
        expect.stringMatching(
          /warn: tools\.block pattern "mcp__everything__no-such-tool" matches no tool of the connected servers/,
        ),
      ])
      expect(serve.stderr()).not.toContain(SECRET)
      // The server answers the next request.
      expect((await listCallable(serve, ['everything'])).names).toContain('mcp__everything__echo')
    } finally {
      await expectCleanShutdown(serve, setup)
      setup.cleanup()
    }
  }, 60_000)

  it.each([
    [
      'the normalised spelling',
      {block: ['mcp__everything__get_env']},
      (n: string[]) => !n.includes('mcp__everything__get_env'),
    ],
    [
      "a glob in the server's spelling",
      {block: ['mcp__everything__get-*']},
      (n: string[]) =>
        n.every((name) => !name.startsWith('mcp__everything__get_')) && n.includes('mcp__everything__echo'),
    ],
    [
      "an allow list in the server's spelling",
      {allow: ['mcp__everything__get-sum', 'mcp__everything__{echo,get-tiny-image}']},
      (n: string[]) =>
        JSON.stringify(n) ===
        JSON.stringify([
          'mcp__everything__echo',
          'mcp__everything__get_sum',
          'mcp__everything__get_tiny_image',
        ]),
    ],
  ])('%s', async (_, tools, check) => {
    const run = await runCommand<ListResult>(['list', '--config', config(tools, 'variant.yaml'), '--json'], {
      root: ROOT,
    })
    expect(run.error).toBeUndefined()
    const names = run.result!.tools.map((t) => t.name)
    expect(check(names), names.join(', ')).toBe(true)
    expect(run.result!.hidden.length).toBeGreaterThan(0)
  })

  it('list and inspect in the CLI say a tool is hidden by tools.block, and doctor warns of a rule matching nothing', async () => {
    const path = config({block: ['mcp__everything__get-env', 'mcp__everything__get-envv']})
    const list = await runCommand<ListResult>(['list', '--config', path], {root: ROOT})
    expect(list.error).toBeUndefined()
    expect(list.stdout).toMatch(
      /mcp__everything__get_env\s+everything\s+hidden by tools\.block \("mcp__everything__get-env"\)/,
    )
    expect(list.stdout).not.toMatch(/^mcp__everything__get_env\s+everything\s+Returns/m)
    expect(list.stderr).toMatch(/Warning: tools\.block pattern "mcp__everything__get-envv" matches no tool/)
    expect(list.stderr).not.toContain('"mcp__everything__get-env" matches')

    for (const spelling of ['mcp__everything__get_env', 'mcp__everything__get-env']) {
      const inspect = await runCommand(['inspect', '--config', path, spelling], {root: ROOT})
      expect(inspect.error?.message).toBe(
        `${spelling} is hidden by tools.block ("mcp__everything__get-env"): programs can neither see nor call it.`,
      )
    }

    const doctor = withExitCode(
      await runCommand<DoctorResult>(['doctor', '--config', path, '--json'], {root: ROOT}),
    )
    const rules = doctor.result?.checks.find((check) => check.id === 'tools')
    expect(rules).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('tools.block pattern "mcp__everything__get-envv" matches no tool'),
    })
    expect(rules?.detail).not.toContain('"mcp__everything__get-env"')
    expect(doctor.stdout).not.toContain(SECRET)
  }, 120_000)
})

describe('an oversized result fails that call only; the shared connection stays', () => {
  /**
   * Bound on serve's peak memory growth over this whole block (40 + 20 + 2×36 MB of results; the
   * 20 MB one is read whole, as it is under the message limit). Measured here: 65 MiB after the
   * 40 MB result, 140-175 MiB at the end, the rest being the pipe's chunks awaiting collection.
   */
  const RSS_GROWTH_BOUND = 256 * 1024 * 1024
  let startRss: number
  let setup: ServeSetup
  let serve: RawServe
  let dir: string
  let counter: string

  const fixturePid = () =>
    descendants(serve.child.pid!).find(
      (pid) => commandLine(pid).startsWith(process.execPath) && commandLine(pid).includes('--name fx'),
    )

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-oversized-test-'))
    counter = join(dir, 'calls')
    writeFileSync(counter, '')
    setup = prepareServe({
      servers: [{name: 'fx', ...fixtureCommand(['--name', 'fx', '--counter-file', counter])}],
      execution: {timeout_seconds: 60, tool_call_timeout_seconds: 40, warm_pool: 1},
    })
    serve = await startRawServe(setup)
    await waitForConnected(serve, ['fx'])
    startRss = peakRss(serve.child.pid!)
  }, 60_000)

  afterAll(async () => {
    if (serve) await expectCleanShutdown(serve, setup)
    setup?.cleanup()
    rmSync(dir, {force: true, recursive: true})
  })

  it("big(40 MB) fails with a clear ToolError while another program's in-flight call on the same connection succeeds", async () => {
    const pid = fixturePid()
    expect(pid).toBeDefined()
    const calls = () => readFileSync(counter, 'utf8').split('\n').filter(Boolean)
    const innocent = execute(serve, 'print(await mcp__fx__slow(ms=4000))')
    await expect.poll(() => calls().includes('slow'), {timeout: 20_000}).toBe(true)
    const hostile = await execute(
      serve,
      'try:\n    await mcp__fx__big(bytes=40_000_000)\nexcept ToolError as e:\n    print(e)\nprint(await mcp__fx__add(a=1, b=2))',
    )
    expect(hostile.structured.ok, hostile.text).toBe(true)
    expect(hostile.structured.output).toBe(
      'result of mcp__fx__big is 38.1 MiB, over the 16 MiB limit (execution.max_tool_result_bytes); ' +
        "request less data: narrower dates, a limit, or a filter\n{'sum': 3}\n",
    )
    // The failure is said once: the program printed it, the trace points there.
    expect(hostile.structured.trace).toMatch(
      /^\[tool calls: 2, 1 failed; [^\n]*\]\n {2}failed: mcp__fx__big \{"bytes":40000000\} \(error above\)$/,
    )
    const other = await innocent
    expect(other.structured, other.text).toMatchObject({ok: true, output: 'slept 4000\n'})
    // Same server process, never reconnected; nothing about a lost connection in the log.
    expect(fixturePid()).toBe(pid)
    expect(serve.stderr()).not.toMatch(/connection lost|server process exited|reconnecting/)
    // The 40 MB were counted, not kept (holding them decoded, joined and parsed costs 4× or more).
    expect(peakRss(serve.child.pid!) - startRss).toBeLessThan(RSS_GROWTH_BOUND)
  }, 90_000)

  it('a result over max_tool_result_bytes but under the message limit gets the same error, and the next call works', async () => {
    const pid = fixturePid()
    const run = await execute(
      serve,
      'try:\n    await mcp__fx__big(bytes=20_000_000)\nexcept ToolError as e:\n    print(e)\nprint(len(await mcp__fx__big(bytes=1000)))',
    )
    expect(run.structured.output).toBe(
      'result of mcp__fx__big is 19.1 MiB, over the 16 MiB limit (execution.max_tool_result_bytes); ' +
        'request less data: narrower dates, a limit, or a filter\n1000\n',
    )
    expect(fixturePid()).toBe(pid)
  }, 60_000)

  it('several oversized results at once, beside good calls, in one program: each fails alone', async () => {
    const pid = fixturePid()
    const run = await execute(
      serve,
      [
        'import asyncio',
        'rs = await asyncio.gather(*[mcp__fx__big(bytes=36_000_000 if i % 2 else 10) for i in range(4)], return_exceptions=True)',
        'print([type(r).__name__ if isinstance(r, Exception) else len(r) for r in rs])',
      ].join('\n'),
    )
    expect(run.structured.output, run.text).toBe("[10, 'ToolError', 10, 'ToolError']\n")
    expect(fixturePid()).toBe(pid)
    expect(peakRss(serve.child.pid!) - startRss).toBeLessThan(RSS_GROWTH_BOUND)
  }, 90_000)
})

describe('an oversized result over streamable HTTP or legacy SSE fails that call only, too', () => {
  let http: HttpFixture
  let sse: HttpFixture
  let setup: ServeSetup
  let serve: RawServe

  beforeAll(async () => {
    const fixtures = await Promise.all([
      startHttpFixture({transport: 'http'}),
      startHttpFixture({transport: 'sse'}),
    ])
    http = fixtures[0]
    sse = fixtures[1]
    setup = prepareServe({
      servers: [
        {name: 'web', transport: 'http', url: http.url},
        {name: 'legacy', transport: 'sse', url: sse.url},
      ],
      execution: {timeout_seconds: 60, tool_call_timeout_seconds: 40, warm_pool: 0},
    })
    serve = await startRawServe(setup)
    await waitForConnected(serve, ['web', 'legacy'])
  }, 60_000)

  afterAll(async () => {
    if (serve) await expectCleanShutdown(serve, setup)
    setup?.cleanup()
    await Promise.all([http?.stop(), sse?.stop()])
  })

  it.each(['web', 'legacy'])(
    '%s: big(60 MB) beside a slow call in flight: the ToolError for one, the answer for the other; the 60 MB are not held',
    async (server) => {
      const startRss = peakRss(serve.child.pid!)
      const run = await execute(
        serve,
        [
          'import asyncio',
          `slow = asyncio.ensure_future(mcp__${server}__slow(ms=2000))`,
          'try:',
          `    await mcp__${server}__big(bytes=60_000_000)`,
          'except ToolError as e:',
          '    print(e)',
          `print(await slow, await mcp__${server}__add(a=1, b=2))`,
        ].join('\n'),
      )
      expect(run.structured.output, run.text).toBe(
        `result of mcp__${server}__big is 57.2 MiB, over the 16 MiB limit (execution.max_tool_result_bytes); ` +
          "request less data: narrower dates, a limit, or a filter\nslept 2000 {'sum': 3}\n",
      )
      expect(serve.stderr()).not.toMatch(/connection lost|reconnecting/)
      // Read whole, as the SDK does without the cap, the 60 MB cost ~200 MiB; dropped as they stream in, ~60.
      expect(peakRss(serve.child.pid!) - startRss).toBeLessThan(128 * 1024 * 1024)
    },
    90_000,
  )
})

describe('`ptc-mcp run` on a terminal neutralises control sequences (real pseudo-terminal)', () => {
  let dir: string
  let configPath: string
  let program: string

  // OSC 52 (write the clipboard), CSI colour and cursor moves, BEL, a lone CR that hides text,
  // a C1 CSI, a bidi override; tabs and newlines must survive.
  const PRINTS = String.raw`print("a\x1b]52;c;ZXZpbA==\x07b\x1b[31mred\x1b[0m\x1b[2J\tT\rC\x9b6n\u202eR\nnext")`

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-tty-test-'))
    configPath = join(dir, 'config.yaml')
    writeFileSync(configPath, stringify({servers: [], execution: {warm_pool: 0}}))
    program = join(dir, 'program.py')
    writeFileSync(program, PRINTS)
  })

  afterAll(() => {
    rmSync(dir, {force: true, recursive: true})
  })

  /** Runs the built CLI with stdout on a pty (python3's pty module); resolves with what the terminal got. */
  function runOnPty(args: string[]): Promise<{code: number | null; out: string}> {
    const relay = [
      'import os, pty, subprocess, sys',
      'master, slave = pty.openpty()',
      'p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL)',
      'os.close(slave)',
      'out = b""',
      'while True:',
      '    try:',
      '        chunk = os.read(master, 65536)',
      '    except OSError:',
      '        break',
      '    if not chunk:',
      '        break',
      '    out += chunk',
      'sys.stdout.buffer.write(out)',
      'sys.exit(p.wait())',
    ].join('\n')
    const child = spawn(
      'python3',
      ['-c', relay, process.execPath, BIN, 'run', '--config', configPath, ...args],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    return new Promise((resolve) => {
      child.once('exit', (code) => resolve({code, out: Buffer.concat(chunks).toString('utf8')}))
    })
  }

  it('shows every control character as a visible symbol, keeping tabs and newlines', async () => {
    const {code, out} = await runOnPty([program])
    expect(code).toBe(0)
    // The pty turns "\n" into "\r\n" (onlcr): that CR is the terminal's, not the program's. On a
    // terminal the output is shown as it comes, and the status line follows it.
    expect(out.replaceAll('\r\n', '\n')).toBe(
      'a␛]52;c;ZXZpbA==␇b␛[31mred␛[0m␛[2J\tT␍C\\u{9b}6n\\u{202e}R\nnext\n' +
        '[Script executed successfully]\n',
    )
    for (const control of ['\u0007', '\u001B', '\u009B', '\u202E']) expect(out).not.toContain(control)
  }, 60_000)

  it('--raw keeps them, and a pipe (not a terminal) gets the output as it is', async () => {
    const raw = await runOnPty(['--raw', program])
    expect(raw.code).toBe(0)
    expect(raw.out).toContain('a\u001B]52;c;ZXZpbA==\u0007b\u001B[31mred')

    const piped = spawn(process.execPath, [BIN, 'run', '--config', configPath, program], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const chunks: Buffer[] = []
    piped.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    const code = await new Promise((resolve) => {
      piped.once('exit', resolve)
    })
    expect(code).toBe(0)
    expect(Buffer.concat(chunks).toString('utf8')).toContain('\u001B]52;c;ZXZpbA==\u0007')
  }, 60_000)
})
