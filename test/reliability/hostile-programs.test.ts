// Programs that break things on purpose or by accident: each gets a clear outcome, and `serve`
// (its downstream server, its warm pool, its scratch space) is healthy afterwards.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {warmPoolMax} from '../../src/execution/engine/warm-pool.js'
import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {commandLine, descendants, programInterpreters} from '../helpers/processes.js'
import {execute, expectCleanShutdown, waitForConnected} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const MAX_OUTPUT = 65_536
const TIMEOUT_SECONDS = 8
const WARM_POOL = 1
/** Children waiting ready (forked ones: twice the default max_concurrent_programs). */
const POOL_MAX = warmPoolMax({warm_pool: WARM_POOL, max_concurrent_programs: 4})

describe('hostile or broken programs', () => {
  let setup: ServeSetup
  let serve: RawServe
  let downstreamPid: number | undefined

  const runners = () => programInterpreters(serve.child.pid!)
  const fixturePid = () =>
    descendants(serve.child.pid!).find(
      (pid) => commandLine(pid).startsWith(process.execPath) && commandLine(pid).includes('--name fx'),
    )

  beforeAll(async () => {
    setup = prepareServe({
      servers: [{name: 'fx', ...fixtureCommand(['--name', 'fx'])}],
      execution: {
        timeout_seconds: TIMEOUT_SECONDS,
        max_output_bytes: MAX_OUTPUT,
        max_tool_calls: 10_000,
        trace: 'full',
        tool_call_timeout_seconds: 2,
        warm_pool: WARM_POOL,
      },
    })
    serve = await startRawServe(setup)
    await waitForConnected(serve, ['fx'])
    downstreamPid = fixturePid()
  }, 60_000)

  afterAll(async () => {
    if (serve) {
      await expectCleanShutdown(serve, setup)
    }
    setup?.cleanup()
  })

  it('deep recursion: a RecursionError with a compact traceback', async () => {
    const run = await execute(serve, 'def f(n):\n    return f(n + 1)\nf(0)')
    expect(run.isError).toBe(true)
    expect(run.structured.error, run.text).toMatch(
      /\[Previous line repeated \d+ more times\]\nRecursionError: maximum recursion depth exceeded$/,
    )
    expect(run.text.length).toBeLessThan(5000)
  })

  it('recursion that overflows the C stack: the crash is reported, not hidden', async () => {
    const run = await execute(
      serve,
      'import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return list(map(f, [n + 1]))\nf(0)',
    )
    expect(run.isError).toBe(true)
    expect(run.structured.error, run.text).toMatch(
      /^RuntimeError: the program's Python process .*SIGSEGV.* before finishing$/,
    )
  })

  it('a giant print is cut at max_output_bytes, and the program still succeeds', async () => {
    const run = await execute(serve, 'print("x" * (100 * 1024 * 1024))\nemit("after")')
    expect(run.structured.ok, run.text).toBe(true)
    expect(run.structured.output, run.text).toMatch(
      /^(\.\.\. \[\d+ bytes omitted: the whole output is in \S+ \(its first 67108864 bytes\)\]\n)x+\n\1x+\n$/,
    )
    expect(Buffer.byteLength(run.output)).toBeLessThanOrEqual(MAX_OUTPUT + 400)
    expect(run.structured.result).toBe('after')
  })

  it('lone surrogates and invalid UTF-8 in the output come back escaped or replaced', async () => {
    const run = await execute(
      serve,
      'import os\nprint("a\\ud800b")\nos.write(1, b"\\xff\\xfe raw\\n")\nemit({"s": "z\\udc00"})',
    )
    expect(run.structured).toMatchObject({
      ok: true,
      output: 'a\\ud800b\n\uFFFD\uFFFD raw\n',
      result: {s: 'z\uDC00'},
    })
  })

  it('os._exit midway: the exit is reported with the output before it', async () => {
    const run = await execute(serve, 'print("half", flush=True)\nimport os\nos._exit(3)\nprint("never")')
    expect(run.structured).toMatchObject({
      ok: false,
      output: 'half\n',
      error: "RuntimeError: the program's Python process exited with code 3 before finishing",
    })
  })

  it('closing descriptors 0-2: printing fails clearly; not printing still succeeds', async () => {
    const printing = await execute(serve, 'import os\nfor fd in (0, 1, 2):\n    os.close(fd)\nprint("lost")')
    expect(printing.isError).toBe(true)
    expect(printing.structured.error, printing.text).toMatch(/OSError: \[Errno 9\] Bad file descriptor$/)

    const quiet = await execute(serve, 'import os\nos.close(1)\nos.close(2)\nemit(1)')
    expect(quiet.structured).toMatchObject({ok: true, result: 1})
    expect(quiet.structured.output).toBeUndefined()

    // The program's own file takes fd 1: whatever it holds, the run still ends.
    const reused = await execute(
      serve,
      'import os\nos.close(1)\nf = open("out.txt", "w")\nprint("into the file")\nemit(f.fileno())',
    )
    expect(reused.structured).toMatchObject({ok: true, result: 1})
  })

  it('closing every descriptor, the private channel included: the run ends as a crash', async () => {
    const run = await execute(serve, 'import os\nos.closerange(0, 4096)\nprint("gone")')
    expect(run.isError).toBe(true)
    expect(run.structured.error, run.text).toMatch(
      /^RuntimeError: the program's Python process .* before finishing$/,
    )
  })

  it('raising in finally: both exceptions, chained', async () => {
    const run = await execute(serve, 'try:\n    raise ValueError("a")\nfinally:\n    raise KeyError("b")')
    expect(run.structured.error, run.text).toMatch(
      /ValueError: a\n\nDuring handling of the above exception, another exception occurred:\n\n[\s\S]*KeyError: 'b'$/,
    )
  })

  it('threads that never stop: the program ends when its code does, and nothing runs on', async () => {
    const run = await execute(
      serve,
      [
        'import threading, time',
        'def spin():',
        '    while True:',
        '        time.sleep(0.001)',
        '        print("late")',
        'def burn():',
        '    while True:',
        '        pass',
        'for _ in range(4):',
        '    threading.Thread(target=spin).start()',
        'threading.Thread(target=burn).start()',
        'print("main done", flush=True)',
      ].join('\n'),
    )
    // Done when the main code is (a thread keeping it alive would end in a timeout instead);
    // what the threads printed until then is output like any other.
    expect(run.structured).toMatchObject({ok: true})
    expect(run.structured.error).toBeUndefined()
    expect(run.structured.output, run.text).toContain('main done\n')
    await expect.poll(() => runners().length <= POOL_MAX, {timeout: 5000}).toBe(true)
  })

  it('thousands of pending tool calls: all answered, or all stopped at the timeout', async () => {
    const many = await execute(
      serve,
      'import asyncio\nr = await asyncio.gather(*[mcp__fx__add(a=i, b=1) for i in range(3000)])\nprint(len(r), sum(x["sum"] for x in r))',
    )
    expect(many.structured.output, many.text).toBe(`3000 ${(2999 * 3000) / 2 + 3000}\n`)
    // Structured content counts the calls (SPEC §5), and with trace: full lists each.
    expect(many.structured.trace).toMatch(/^\[tool calls: 3000; /)
    expect(many.calls).toHaveLength(3000)

    const stuck = await execute(
      serve,
      'import asyncio\nawait asyncio.gather(*[mcp__fx__hang() for _ in range(3000)], return_exceptions=True)',
    )
    expect(stuck.structured.error, stuck.text).toBe(
      `TimeoutError: Execution exceeded ${TIMEOUT_SECONDS}s limit (execution.timeout_seconds): do less per program, or split the work`,
    )
    // Only max_concurrent_calls were ever in flight; each stopped at the per-call timeout.
    expect(stuck.calls.length).toBeLessThan(100)
    expect(stuck.calls.every((call) => !call.ok)).toBe(true)
  }, 60_000)

  it('a memory bomb is a MemoryError, a CPU loop a timeout', async () => {
    const memory = await execute(serve, 'x = bytearray(10**11)')
    expect(memory.structured.error, memory.text).toMatch(/MemoryError$/)
    const loop = await execute(serve, 'while True:\n    pass')
    expect(loop.structured.error, loop.text).toBe(
      `TimeoutError: Execution exceeded ${TIMEOUT_SECONDS}s limit (execution.timeout_seconds): do less per program, or split the work`,
    )
  }, 30_000)

  it('afterwards the server is healthy: same downstream process, a clean pool, programs run', async () => {
    expect(fixturePid()).toBe(downstreamPid)
    const run = await execute(serve, 'print((await mcp__fx__add(a=40, b=2))["sum"])')
    expect(run.text).toMatch(/^\[Script executed successfully\]\n42\n/)
    // The finished child's directory is removed just after its run: wait for it.
    await expect
      .poll(() => runners().length <= POOL_MAX && setup.scratchDirs().length <= POOL_MAX, {timeout: 5000})
      .toBe(true)
    expect(serve.lines.invalid).toEqual([])
  })
})
