// A program that speaks the child's channel itself (fd 255 in the child) or sends what the runner
// would never send: every message is checked by the parent (SPEC §15). Each attack gets a clear
// answer; afterwards the server answers the next request, its memory stayed under a stated bound,
// the trace matches what reached the downstream server, and nothing is left running or on disk.
import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {warmPoolMax} from '../../src/execution/engine/warm-pool.js'
import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type RawServe, resultText, startRawServe, toolResult} from '../helpers/json-rpc.js'
import {programInterpreters} from '../helpers/processes.js'
import {FORGED_ID, RAW_CHANNEL} from '../helpers/raw-channel.js'
import {execute, expectCleanShutdown, waitForConnected} from '../helpers/serve-session.js'
import {BIN, NO_UNLISTED_ASKING, prepareServe, type ServeSetup} from '../helpers/serve.js'

const MAX_OUTPUT = 65_536
const TIMEOUT_SECONDS = 40
const WARM_POOL = 1
/** Children waiting ready after programs ran at once: the pool of forked children grows to this. */
const POOL_MAX = warmPoolMax({warm_pool: WARM_POOL, max_concurrent_programs: 4})
/** serve idles near 90 MB here; every attack must stay under this peak (unbounded before: GBs, then OOM). */
const PEAK_RSS_MB = 512
/**
 * The 5,000,000-item lists are parsed one at a time (~180 MB each as objects): the peak is where
 * the collector gets to them, 430–540 MB seen under load; holding them all would be ~2 GB.
 */
const HUGE_ARGS_PEAK_RSS_MB = 768

describe('hostile channel messages (SPEC §15)', () => {
  let setup: ServeSetup
  let serve: RawServe
  let counterFile: string

  const runners = () => programInterpreters(serve.child.pid!)
  const status = (field: string) =>
    Number(
      new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${serve.child.pid}/status`, 'utf8'))?.[1],
    ) / 1024
  /** Calls the fixture received so far (its --counter-file has one line per call). */
  const fixtureCalls = () => readFileSync(counterFile, 'utf8').split('\n').filter(Boolean)

  beforeAll(async () => {
    setup = prepareServe({servers: []})
    counterFile = join(setup.configPath, '..', 'calls.txt')
    writeFileSync(counterFile, '')
    writeFileSync(
      setup.configPath,
      JSON.stringify({
        servers: [
          {name: 'fx', ...fixtureCommand(['--name', 'fx', '--counter-file', counterFile, '--pattern-tools'])},
        ],
        permissions: NO_UNLISTED_ASKING,
        execution: {
          timeout_seconds: TIMEOUT_SECONDS,
          max_output_bytes: MAX_OUTPUT,
          max_concurrent_calls: 2,
          max_tool_calls: 1000,
          warm_pool: WARM_POOL,
          trace: 'full',
        },
      }),
    )
    serve = await startRawServe(setup)
    await waitForConnected(serve, ['fx'])
  }, 60_000)

  beforeEach(() => {
    // Resets the peak RSS (VmHWM) of serve: each test measures its own attack.
    writeFileSync(`/proc/${serve.child.pid}/clear_refs`, '5')
  })

  afterAll(async () => {
    if (serve) await expectCleanShutdown(serve, setup)
    setup?.cleanup()
  })

  /** The server answers the next request, stayed under the memory bound and left nothing behind. */
  async function expectHealthy(peakRssMb = PEAK_RSS_MB): Promise<void> {
    const next = await execute(serve, 'print((await mcp__fx__add(a=40, b=2))["sum"])')
    expect(next.text).toMatch(/^\[Script executed successfully\]\n42\n/)
    expect(status('VmHWM')).toBeLessThan(peakRssMb)
    await expect
      .poll(() => runners().length <= POOL_MAX && setup.scratchDirs().length <= POOL_MAX, {timeout: 5000})
      .toBe(true)
    expect(serve.lines.invalid).toEqual([])
  }

  it('a done nested 200,000 deep ends its run with a clear error; no stack overflow anywhere', async () => {
    const run = await execute(
      serve,
      `${RAW_CHANNEL}send(b'{"type":"done","ok":true,"error":null,"has_result":true,"result":' + b'['*200000 + b']'*200000 + b'}\\n')\ntime.sleep(30)`,
    )
    expect(run.structured).toMatchObject({
      ok: false,
      error:
        'RuntimeError: protocol error: the child sent a message nested deeper than 100 levels (tool arguments and emit() values must be smaller)',
    })
    // Nothing emitted, no call made: neither is mentioned.
    expect(run.structured).not.toHaveProperty('result')
    expect(run.structured).not.toHaveProperty('calls')
    expect(serve.stderr()).toMatch(
      /a program child broke the protocol: the child sent a message nested deeper/,
    )
    await expectHealthy()
  })

  it('call arguments nested too deep: that call fails (ToolError), the program goes on', async () => {
    const before = fixtureCalls().length
    const run = await execute(
      serve,
      [
        RAW_CHANNEL,
        // A real call whose arguments nest 150 levels: Python can send it, the parent refuses it.
        'deep = []',
        'for _ in range(150):',
        '    deep = [deep]',
        'try:',
        '    await mcp__fx__echo(text=deep)',
        'except ToolError as e:',
        '    print("refused:", e)',
        'print((await mcp__fx__add(a=1, b=2))["sum"])',
        // Forged in the runner's own format, with the next id: answered (nobody waits), the run goes on.
        `send(b'{"type":"call","tool":"mcp__fx__echo","args":{"text":' + b'['*200000 + b']'*200000 + b'},"id":3}\\n')`,
        'time.sleep(0.5)',
      ].join('\n'),
    )
    expect(run.structured, run.text).toMatchObject({
      ok: true,
      output:
        'refused: the arguments are refused: they are nested deeper than 100 levels; pass less data per call\n3\n',
    })
    // The trace is the add call alone, and so is what reached the server.
    expect(run.calls).toMatchObject([{tool: 'mcp__fx__add', ok: true}])
    expect(fixtureCalls().slice(before)).toEqual(['add'])

    // Not in the runner's format: the run ends.
    const forged = await execute(
      serve,
      `${RAW_CHANNEL}send(b'{"type":"call","id":${FORGED_ID},"tool":"mcp__fx__echo","args":{"text":' + b'['*200000 + b']'*200000 + b'}}\\n')\ntime.sleep(30)`,
    )
    expect(forged.structured.error).toMatch(
      /^RuntimeError: protocol error: the child sent a message nested deeper/,
    )
    await expectHealthy()
  })

  it('ten calls with one id: the run ends at the second, and the trace says what reached the server', async () => {
    const before = fixtureCalls().length
    const run = await execute(
      serve,
      `${RAW_CHANNEL}for _ in range(10):\n    send(b'{"type":"call","id":${FORGED_ID},"tool":"mcp__fx__slow","args":{"ms":3000}}\\n')\ntime.sleep(30)`,
    )
    expect(run.structured.error).toBe(
      `RuntimeError: protocol error: the child reused request id ${FORGED_ID} (ids must increase: ${FORGED_ID} came before)`,
    )
    // One call started before the second message ended the run: it is in the trace, as stopped.
    expect(run.calls).toEqual([
      expect.objectContaining({
        tool: 'mcp__fx__slow',
        ok: false,
        error: 'the program ended before the call finished',
      }),
    ])
    await expect.poll(() => fixtureCalls().length > before, {timeout: 5000}).toBe(true)
    expect(fixtureCalls().slice(before)).toEqual(['slow'])

    // Going back to an earlier id is the same.
    const back = await execute(
      serve,
      `${RAW_CHANNEL}await mcp__fx__add(a=1, b=1)\nsend(b'{"type":"helper","name":"server_status","args":{},"id":1}\\n')\ntime.sleep(30)`,
    )
    expect(back.structured.error).toBe(
      'RuntimeError: protocol error: the child reused request id 1 (ids must increase: 1 came before)',
    )
    expect(back.calls).toMatchObject([{tool: 'mcp__fx__add', ok: true}])
    await expectHealthy()
  })

  it('a child that writes requests without reading the answers: its run ends with a clear error, memory bounded', async () => {
    const started = Date.now()
    const run = await execute(
      serve,
      `${RAW_CHANNEL}i = ${FORGED_ID}\nwhile True:\n    i += 1\n    send(b'{"type":"helper","name":"list_callable_tools","args":{},"id":%d}\\n' % i)`,
    )
    expect(run.structured.error).toMatch(
      /^RuntimeError: the program stopped reading the answers to its requests \(\d+(?:\.\d)? MiB waiting for 10s\); await tool calls and helpers rather than blocking/,
    )
    // Well before the program's own timeout; helpers are not calls, and no call was made.
    expect(Date.now() - started).toBeLessThan((TIMEOUT_SECONDS - 5) * 1000)
    expect(run.calls).toEqual([])
    await expectHealthy()
  }, 60_000)

  it('a forged done with a 10 MB result is refused: max_output_bytes holds whatever the child claims', async () => {
    const run = await execute(
      serve,
      `${RAW_CHANNEL}send(b'{"type":"done","ok":true,"error":null,"has_result":true,"result":"' + b'x'*10_000_000 + b'"}\\n')\ntime.sleep(30)`,
    )
    expect(run.structured).toMatchObject({
      ok: false,
      error: `RuntimeError: protocol error: the child sent a result of 10000002 bytes, over the ${MAX_OUTPUT}-byte limit (max_output_bytes)`,
    })
    // Nothing emitted, no call made: neither is mentioned.
    expect(run.structured).not.toHaveProperty('result')
    expect(run.structured).not.toHaveProperty('calls')
    // A forged 10 MB error keeps its head.
    const error = await execute(
      serve,
      `${RAW_CHANNEL}send(b'{"type":"done","ok":false,"error":"' + b'e'*10_000_000 + b'","has_result":false,"result":null}\\n')\ntime.sleep(30)`,
    )
    expect(error.structured.error).toMatch(/^e{32000}\n\.\.\. \(cut\)$/)
    expect(error.text.length).toBeLessThan(40_000)
    await expectHealthy()
  })

  it('huge arguments in a loop: every call fails alone, the trace keeps their head, memory bounded', async () => {
    const run = await execute(
      serve,
      [
        // globals(): names may be bound unseen, so the preflight check leaves mcp__fx__nope to run time.
        'names = globals()',
        'failed = 0',
        'for i in range(10):',
        '    try:',
        '        await mcp__fx__nope(a=[{}]*5_000_000)',
        '    except ToolError:',
        '        failed += 1',
        'for i in range(20):',
        '    try:',
        '        await mcp__fx__nope(a=[{}]*500_000)',
        '    except ToolError:',
        '        failed += 1',
        'for i in range(20):',
        '    try:',
        '        await mcp__fx__add(a="x"*15_000_000, b=1)',
        '    except ToolError:',
        '        failed += 1',
        'print(failed)',
      ].join('\n'),
      120_000,
    )
    expect(run.structured, run.text).toMatchObject({ok: true, output: '50\n'})
    // The 5,000,000-item lists never reached the host (refused as sent); the others did, and each
    // is recorded cut (SPEC §5: 200 characters).
    const {calls} = run
    expect(calls).toHaveLength(40)
    for (const call of calls) expect(JSON.stringify(call.args).length).toBeLessThanOrEqual(200)
    expect(calls[0]).toMatchObject({
      tool: 'mcp__fx__nope',
      args: {a: expect.arrayContaining([{}, expect.stringMatching(/^…\(\+4999\d\d items\)$/)])},
    })
    expect(calls[39]).toMatchObject({tool: 'mcp__fx__add', args: {a: expect.stringMatching(/^x+…x+$/), b: 1}})
    await expectHealthy(HUGE_ARGS_PEAK_RSS_MB)
  }, 150_000)

  it('inspect_tool with a 16,000,000-character name answers at once; a concurrent program is not held up', async () => {
    const attack = execute(
      serve,
      'for _ in range(20):\n    try:\n        await inspect_tool(tool_name="q"*16_000_000)\n    except ToolError as e:\n        msg = str(e)\nprint(msg[-110:])',
    )
    const innocent = await execute(serve, 'print("innocent")')
    expect(innocent.structured).toMatchObject({ok: true, output: 'innocent\n'})
    const run = await attack
    expect(run.structured).toMatchObject({
      ok: true,
      output: expect.stringMatching(
        /…' \(16000000 characters\), and no tool has a similar name; list_callable_tools\(\) shows the \d+ available tools\.\n$/,
      ),
    })
    expect(run.structured).not.toHaveProperty('calls')
    await expectHealthy()
  }, 60_000)

  it('a downstream pattern ^(a+)+$ against "a"*28+"!" is checked in linear time; a concurrent program completes', async () => {
    const before = fixtureCalls().length
    const attack = execute(
      serve,
      [
        'refused = 0',
        'for n in range(20, 40):',
        '    try:',
        '        await mcp__fx__redos(word="a" * n + "!")',
        '    except ToolError as e:',
        '        refused += 1',
        '        last = str(e)',
        'print(refused, last)',
        'print(await mcp__fx__redos(word="a" * 28))',
        'try:',
        '    await mcp__fx__lookahead(code="Abc")',
        'except ToolError as e:',
        '    print(e)',
      ].join('\n'),
    )
    const innocent = await execute(serve, 'print("innocent")')
    expect(innocent.structured).toMatchObject({ok: true, output: 'innocent\n'})
    const run = await attack
    expect(run.structured, run.text).toMatchObject({
      ok: true,
      output: [
        `20 invalid arguments for mcp__fx__redos: argument 'word': must match pattern "^(a+)+$"`,
        '  await mcp__fx__redos(*, word: str) -> Any',
        'word of 28',
        'invalid arguments for mcp__fx__lookahead: its schema has the pattern "^(?=.*[A-Z]).+$", which ptc-mcp cannot check in linear time (invalid or unsupported Perl syntax: `(?=`)',
        '  await mcp__fx__lookahead(*, code: str) -> Any',
        '',
      ].join('\n'),
    })
    // Only the valid word reached the server; the trace says the same.
    expect(fixtureCalls().slice(before)).toEqual(['redos'])
    expect(run.calls.filter((call) => call.ok)).toMatchObject([{tool: 'mcp__fx__redos'}])
    expect(run.calls).toHaveLength(22)
    await expectHealthy()
  }, 60_000)

  it('arguments with a million invalid items: one problem reported, at once; a concurrent program completes', async () => {
    const attack = execute(
      serve,
      'for _ in range(5):\n    try:\n        await mcp__fx__structured(ticker="A", fields=[1] * 1_000_000)\n    except ToolError as e:\n        msg = str(e)\nprint(msg)',
    )
    const innocent = await execute(serve, 'print("innocent")')
    expect(innocent.structured).toMatchObject({ok: true, output: 'innocent\n'})
    const run = await attack
    expect(run.structured, run.text).toMatchObject({
      ok: true,
      output: expect.stringMatching(
        /^invalid arguments for mcp__fx__structured: argument 'fields\[0\]': must be string\n {2}await mcp__fx__structured\(\*, ticker: str/,
      ),
    })
    await expectHealthy()
  }, 60_000)

  it('150 programs at once: 4 run, 64 wait (with progress), the rest are refused; never 150 sandboxes', async () => {
    let peakRunners = 0
    const sampler = setInterval(() => {
      peakRunners = Math.max(peakRunners, runners().length)
    }, 50)
    // The four that take the slots hold them 3 s, time for serve to read all 150 requests on a
    // loaded box before a slot frees (a fifth would then be taken); the queued ones are quick.
    const code = (i: number) => `import time\ntime.sleep(${i < 4 ? 3 : 0.05})\nprint(${i})`
    const requests = Array.from({length: 150}, (_, i) =>
      i === 10
        ? serve.request(
            'tools/call',
            {name: 'execute_program', arguments: {code: code(i)}, _meta: {progressToken: 'queued'}},
            120_000,
          )
        : serve.callTool('execute_program', {code: code(i)}, 120_000),
    )
    const responses = await Promise.all(requests)
    clearInterval(sampler)
    const results = responses.map((response) => toolResult(response))
    const ran = results.filter((result) => result.isError !== true)
    const refused = results.filter((result) => result.isError === true)
    const unexpected = refused
      .map((result) => (result.structuredContent as {error?: string} | undefined)?.error ?? '')
      .filter((error) => !error.startsWith('ProgramsBusyError'))
    expect(ran, `failed otherwise: ${JSON.stringify(unexpected.slice(0, 3))}`).toHaveLength(4 + 64)
    expect(refused).toHaveLength(150 - 68)
    expect(refused[0]?.structuredContent).toMatchObject({
      error:
        'ProgramsBusyError: 4 programs are running and 64 waiting, the most allowed (execution.max_concurrent_programs: 4, and 64 waiting); run this program again once some have finished',
    })
    // The first 68 were taken, in order; each printed its own number.
    expect(ran.map((result) => (result.structuredContent as {output: string}).output)).toEqual(
      Array.from({length: 68}, (_, i) => `${i}\n`),
    )
    // Sandboxes: the running programs, those answered whose sandboxes are still going (at most
    // twice as many) and the warm pool's (grown, as this burst asks for); never one per request.
    console.log(`[hostile-channel] peak sandboxes alive: ${peakRunners}`)
    expect(peakRunners).toBeLessThanOrEqual(3 * 4 + POOL_MAX)
    // The 11th, which sent a progress token, was told it was waiting and how many were ahead.
    const notice = serve.lines.all.find(
      (m) => (m.params as {progressToken?: string} | undefined)?.progressToken === 'queued',
    )
    expect((notice?.params as {message: string}).message).toMatch(
      /^waiting for a free slot \(execution\.max_concurrent_programs\); \d programs ahead$/,
    )
    await expectHealthy()
  }, 180_000)

  it('a program waiting for a slot gets progress notifications saying so', async () => {
    const blockers = Array.from({length: 4}, () => execute(serve, 'import time\ntime.sleep(3)', 60_000))
    const waiting = serve.request(
      'tools/call',
      {name: 'execute_program', arguments: {code: 'print("after")'}, _meta: {progressToken: 'waiter'}},
      60_000,
    )
    const notice = await serve.lines.waitFor(
      (m) =>
        m.method === 'notifications/progress' &&
        (m.params as {progressToken?: string}).progressToken === 'waiter',
      30_000,
    )
    expect((notice.params as {message: string}).message).toBe(
      'waiting for a free slot (execution.max_concurrent_programs); next in line',
    )
    expect(resultText(await waiting)).toMatch(/^\[Script executed successfully\]\nafter/)
    await Promise.all(blockers)
    await expectHealthy()
  }, 60_000)

  it('run --json prints the structured content whatever the trace held (a 15 MB argument)', async () => {
    const program = join(setup.configPath, '..', 'big-arg.py')
    writeFileSync(
      program,
      'try:\n    await mcp__fx__add(a="x"*15_000_000, b=1)\nexcept ToolError as e:\n    print("failed")',
    )
    const child = spawn(process.execPath, [BIN, 'run', program, '--json', '--config', setup.configPath], {
      env: setup.env,
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', resolve)
    })
    expect(code).toBe(0)
    const outcome = JSON.parse(stdout) as {output: string; calls: Array<{args: {a: string}}>}
    expect(outcome.output).toBe('failed\n')
    expect(outcome.calls[0]?.args.a).toMatch(/^x{50,}…x{20,}$/)
  }, 60_000)
})
