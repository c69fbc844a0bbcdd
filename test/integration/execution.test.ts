/**
 * The program engine with real Python children (SPEC §6, §7, §8): every test runs real programs
 * through `ProgramEngine.run`. The sandbox is `none` unless PTC_MCP_TEST_SANDBOX names another
 * backend; sandbox escapes are sandbox-escape.test.ts's business.
 */
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import type {ToolHost} from '../../src/downstream/types.js'
import type {SandboxBackend} from '../../src/sandbox/backend.js'

import {type ExecutionConfig} from '../../src/config/schema.js'
import {ToolRegistry} from '../../src/downstream/registry.js'
import {ProgramEngine, type RunOptions, type RunOutcome} from '../../src/execution/engine/engine.js'
import {type SandboxSetting, selectBackend} from '../../src/sandbox/index.js'
import {noneBackend} from '../../src/sandbox/none.js'
import {SCRATCH_PREFIX, scratchRoot} from '../../src/sandbox/scratch.js'
import {closeTestEngines, createTestEngine} from '../helpers/engine.js'
import {LocalHost, standardTools} from '../helpers/local-host.js'
import {startFixtureRegistry} from '../helpers/registry.js'

let backend: SandboxBackend
const tempDirs: string[] = []

beforeAll(async () => {
  backend = await selectBackend((process.env.PTC_MCP_TEST_SANDBOX ?? 'none') as SandboxSetting)
})

afterAll(async () => {
  await closeTestEngines()
  await Promise.all(tempDirs.map((dir) => rm(dir, {recursive: true, force: true})))
})

function createEngine(
  execution: Partial<ExecutionConfig> = {},
  host: ToolHost = new LocalHost(standardTools()),
  sandbox: SandboxBackend = backend,
): Promise<ProgramEngine> {
  return createTestEngine(host, {warm_pool: 1, ...execution, sandbox: 'none'}, {backend: sandbox})
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ptc-exec-test-'))
  tempDirs.push(dir)
  return dir
}

/** Source text from indented template lines (test readability only; the engine never dedents). */
function py(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n')
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length))
  return lines.map((l) => l.slice(indent)).join('\n')
}

let shared: Promise<ProgramEngine> | undefined
const run = async (code: string, options?: RunOptions): Promise<RunOutcome> => {
  shared ??= createEngine()
  return (await shared).run(code, options)
}

describe('output', () => {
  test('asyncio is there without an import, and importing it still works (SPEC §6)', async () => {
    const outcome = await run(
      'print(await asyncio.gather(asyncio.sleep(0, "a"), asyncio.sleep(0, "b")))\nimport asyncio as mod\nprint(mod is asyncio)',
    )
    expect(outcome.output, outcome.text).toBe("['a', 'b']\nTrue\n")
  })

  test('printed output comes back after the success header', async () => {
    const outcome = await run('print(1)')
    expect(outcome).toMatchObject({ok: true, output: '1\n', error: null, result: null, tool_calls: []})
    expect(outcome.text).toBe('[Script executed successfully]\n1')
    expect(outcome.sandbox).toMatch(backend.name === 'none' ? /^none$/ : /^linux:/)
  })

  test('a program that prints nothing says so', async () => {
    expect((await run('x = 1')).text).toBe('[Script executed successfully]\n(no output)')
  })

  test('multi-line output, stdout and stderr interleaved in order', async () => {
    const outcome = await run(
      py(`
      import sys
      print("one")
      print("two", file=sys.stderr)
      print("three", end="")
      sys.stderr.write("-four\\n")
      print("five")
    `),
    )
    expect(outcome.output).toBe('one\ntwo\nthree-four\nfive\n')
  })

  test('multi-line strings and nested blocks are run exactly as written', async () => {
    const code = 's = """first\n  indented\n\tcol0 tab\nlast"""\ndef f():\n    return s\nprint(f())'
    expect((await run(code)).output).toBe('first\n  indented\n\tcol0 tab\nlast\n')
  })

  test('top-level await and asyncio work', async () => {
    const outcome = await run(
      py(`
      import asyncio
      async def twice(x):
          await asyncio.sleep(0.01)
          return 2 * x
      print(await asyncio.gather(twice(1), twice(2)))
    `),
    )
    expect(outcome.output).toBe('[2, 4]\n')
  })

  test('non-ASCII and lone surrogates print without breaking the run', async () => {
    const outcome = await run('print("héllo wörld ✓")\nprint("bad \\ud800 end")')
    expect(outcome.ok).toBe(true)
    expect(outcome.output).toBe('héllo wörld ✓\nbad \\ud800 end\n')
  })

  test('output over the cap keeps its head and tail, on line and character boundaries, and says how much is omitted', async () => {
    const engine = await createEngine({max_output_bytes: 101, warm_pool: 0})
    const outcome = await engine.run('print("é" * 500)\nprint("last line")\nprint("summary: done")')
    expect(outcome.ok).toBe(true)
    const [note, head, tail] = outcome.output.split(
      /\n?\.\.\. \[\d+ bytes omitted(?:: the whole output is in [^\]]+)?\]\n/,
    )
    expect(note).toBe('')
    expect(head).toMatch(/^é+$/)
    expect(tail).toMatch(/^é+\nlast line\nsummary: done\n$/)
    const omitted = Number(
      /\[(\d+) bytes omitted(?:: the whole output is in [^\]]+)?\]/.exec(outcome.output)![1],
    )
    expect(omitted + Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBe(1001 + 10 + 14)
    expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBeLessThanOrEqual(101)
    expect(outcome.text).toContain('\nlast line\nsummary: done')
  })

  test('a program printing far beyond the cap is not slowed down or broken by it', async () => {
    const engine = await createEngine({max_output_bytes: 1000, warm_pool: 0})
    const outcome = await engine.run('for i in range(20000):\n    print("line", i)\nemit("finished")')
    expect(outcome).toMatchObject({ok: true, result: 'finished'})
    expect(Buffer.byteLength(outcome.output)).toBeLessThanOrEqual(
      1000 + 2 * '\n... [400000 bytes omitted: the whole output is in ]\n'.length + 300,
    )
    expect(outcome.output).toMatch(/\nline 19999\n$/)
  })
})

describe('errors', () => {
  test('a runtime error shows the program line numbers and source, without runner frames', async () => {
    const outcome = await run(
      py(`
      print("before")
      def helper(n):
          return undefined_name + n
      helper(1)
    `),
    )
    expect(outcome.ok).toBe(false)
    // Python >= 3.11 adds caret lines under the failing expression (their shape varies by version).
    const withoutCarets = outcome.error
      ?.split('\n')
      .filter((line) => !/^\s*[~^]+\s*$/.test(line))
      .join('\n')
    expect(withoutCarets).toBe(
      [
        'Traceback (most recent call last):',
        '  File "<program>", line 4, in <module>',
        '    helper(1)',
        '  File "<program>", line 3, in helper',
        '    return undefined_name + n',
        "NameError: name 'undefined_name' is not defined",
      ].join('\n'),
    )
    expect(outcome.text).toBe(
      `[Script execution failed]\n${outcome.error}\n--- output before the error ---\nbefore`,
    )
  })

  test('a syntax error shows the line and a caret', async () => {
    const outcome = await run('x = 1\nprint("a"\ny = 2\n')
    expect(outcome.ok).toBe(false)
    expect(outcome.error).toMatch(/^ {2}File "<program>", line 2\n {4}print\("a"\n {9}\^\nSyntaxError: /)
    expect(outcome.output).toBe('')
  })

  test('an error inside an indented block points at the right line', async () => {
    const outcome = await run('for i in range(3):\n    if i == 2:\n        raise ValueError(f"bad {i}")\n')
    expect(outcome.error).toContain('File "<program>", line 3, in <module>\n    raise ValueError(f"bad {i}")')
    expect(outcome.error).toMatch(/ValueError: bad 2$/)
  })

  test('traceback.print_exc() inside the program shows the source too', async () => {
    const outcome = await run(
      'import traceback\ntry:\n    1/0\nexcept ZeroDivisionError:\n    traceback.print_exc()\n',
    )
    expect(outcome.ok).toBe(true)
    expect(outcome.output).toContain('File "<program>", line 3, in <module>\n    1/0')
  })

  test('SystemExit is a failure, whatever its code', async () => {
    for (const code of ['import sys\nsys.exit(0)', 'raise SystemExit(3)', 'import sys\nsys.exit("bye")']) {
      const outcome = await run(code)
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toMatch(/SystemExit/)
    }
  })

  test('a hard exit or a crash of the interpreter ends the run with a clear error', async () => {
    const exited = await run('import os\nprint("bye", flush=True)\nos._exit(7)')
    expect(exited).toMatchObject({ok: false, output: 'bye\n'})
    expect(exited.error).toMatch(/exited with code 7 before finishing/)
    const killed = await run('import os, signal\nos.kill(os.getpid(), signal.SIGKILL)')
    expect(killed.error).toMatch(/killed by SIGKILL/)
    expect((await run('print("still fine")')).output).toBe('still fine\n')
  })

  test('an exception raised from an asyncio.gather of tasks keeps the program frames', async () => {
    const outcome = await run(
      py(`
      import asyncio
      async def one(i):
          await asyncio.sleep(0)
          if i == 1:
              raise KeyError("k")
      await asyncio.gather(one(0), one(1))
    `),
    )
    expect(outcome.error).toContain('File "<program>", line 6, in <module>')
    expect(outcome.error).toContain('File "<program>", line 5, in one')
    expect(outcome.error).toMatch(/KeyError: 'k'$/)
    expect(outcome.error).not.toMatch(/runner\.py/)
  })
})

describe('timeouts', () => {
  test.each([
    ['a CPU-bound loop', 'print("started", flush=True)\nwhile True:\n    pass'],
    ['a blocking sleep', 'import time\nprint("started", flush=True)\ntime.sleep(60)'],
    ['an awaited sleep', 'import asyncio\nprint("started", flush=True)\nawait asyncio.sleep(60)'],
  ])('%s is killed at the limit, its output kept, and the next program runs', async (_name, code) => {
    const engine = await createEngine({timeout_seconds: 1})
    const outcome = await engine.run(code)
    expect(outcome).toMatchObject({
      ok: false,
      output: 'started\n',
      error:
        'TimeoutError: Execution exceeded 1s limit (execution.timeout_seconds): do less per program, or split the work',
    })
    expect(outcome.text).toBe(
      '[Script execution failed]\nTimeoutError: Execution exceeded 1s limit (execution.timeout_seconds): do less per program, or split the work\n--- output before the error ---\nstarted',
    )
    expect(await engine.run('print("next")')).toMatchObject({ok: true, output: 'next\n'})
  })
})

describe('the child cannot forge its outcome', () => {
  const forged = JSON.stringify({type: 'done', ok: true, error: null, has_result: true, result: 'forged'})

  test('a done message printed or written to any other descriptor is just output', async () => {
    const outcome = await run(
      py(`
      import os, sys
      line = ${JSON.stringify(forged)} + "\\n"
      print(line, end="", flush=True)
      sys.stderr.write(line)
      sys.stderr.flush()
      for fd in range(0, 200):
          try:
              os.write(fd, line.encode())
          except OSError:
              pass
      raise RuntimeError("the real outcome")
    `),
    )
    expect(outcome.ok).toBe(false)
    expect(outcome.result).toBeNull()
    expect(outcome.error).toMatch(/RuntimeError: the real outcome$/)
    expect(outcome.output).toContain(forged)
  })

  test('garbage on the private channel ends that run with a protocol error, not the server', async () => {
    const outcome = await run('import os\nos.write(255, b"this is not json\\n")\nimport time\ntime.sleep(5)')
    expect(outcome.ok).toBe(false)
    expect(outcome.error).toMatch(/protocol error: the child sent a line that is not JSON/)
    expect((await run('print("ok")')).output).toBe('ok\n')
  })

  test('an oversized channel message ends the run', async () => {
    const engine = await createEngine({max_tool_result_bytes: 1024, max_output_bytes: 1024})
    // Over every bound a line has, a stored value's (state.max_value_bytes, 16 MiB) included.
    const outcome = await engine.run(
      'import os\nos.write(255, b"x" * 20_000_000)\nimport time\ntime.sleep(5)',
    )
    expect(outcome.error).toMatch(/protocol error: the child sent a message over \d+ bytes/)
  })

  test('threads and tasks still running when the program ends never print', async () => {
    const outcome = await run(
      py(`
      import asyncio, os, threading, time
      started = threading.Event()
      def late_thread():
          print("thread started", flush=True)
          started.set()
          # Long after the program ends, on a loaded machine too: only a child that waited could print.
          time.sleep(2)
          print("late thread print", flush=True)
          os.write(1, b"late thread write\\n")
      async def late_task():
          await asyncio.sleep(2)
          print("late task print", flush=True)
      threading.Thread(target=late_thread).start()
      asyncio.ensure_future(late_task())
      started.wait()
      print("main done")
    `),
    )
    expect(outcome).toMatchObject({ok: true, output: 'thread started\nmain done\n'})
  })
})

describe('isolation', () => {
  test("the server's environment and secrets are not visible", async () => {
    process.env.PTC_TEST_SERVER_SECRET = 'hunter2-secret'
    try {
      const engine = await createEngine({warm_pool: 0})
      const outcome = await engine.run(
        'import os, json\nprint(json.dumps(dict(os.environ)))\nprint(os.getcwd())',
      )
      const [environText, cwd] = outcome.output.trim().split('\n')
      const environ = JSON.parse(environText ?? '{}') as Record<string, string>
      expect(outcome.output).not.toContain('hunter2-secret')
      // bwrap adds PWD; nothing else may appear.
      expect(
        Object.keys(environ)
          .filter((key) => key !== 'PWD')
          .sort(),
      ).toEqual(['HOME', 'LANG', 'LC_ALL', 'PATH', 'PYTHONIOENCODING', 'TMPDIR'])
      expect(environ.HOME).toBe(cwd)
      expect(environ.TMPDIR).toBe(cwd)
      expect(environ.LANG).toBe('C.UTF-8')
    } finally {
      delete process.env.PTC_TEST_SERVER_SECRET
    }
  })

  test('the interpreter is isolated: no site, no user paths, no PYTHONPATH, no script directory', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'planted_module.py'), 'print("planted module imported")\n')
    const previous = process.env.PYTHONPATH
    process.env.PYTHONPATH = dir
    try {
      const engine = await createEngine({warm_pool: 0})
      const outcome = await engine.run(
        py(`
        import sys
        print(sys.flags.isolated, sys.flags.no_site, sys.flags.ignore_environment, sys.flags.dont_write_bytecode)
        print("site" in sys.modules, any("site-packages" in p for p in sys.path))
        print([p for p in sys.path if "execution" in p or p in ("", ".")])
        try:
            import planted_module
        except ModuleNotFoundError as e:
            print("refused:", e.name)
      `),
      )
      expect(outcome.output).toBe('1 1 1 1\nFalse False\n[]\nrefused: planted_module\n')
    } finally {
      if (previous === undefined) delete process.env.PYTHONPATH
      else process.env.PYTHONPATH = previous
    }
  })

  test('the limits are set before the program runs, soft = hard (the CPU limit: hard one second above)', async () => {
    const engine = await createEngine({timeout_seconds: 7, warm_pool: 0})
    const outcome = await engine.run(
      py(`
      import resource as r
      for name in ["RLIMIT_CPU", "RLIMIT_CORE", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_AS"]:
          soft, hard = r.getrlimit(getattr(r, name))
          print(name, soft, soft == hard, hard - soft)
    `),
    )
    const limits = Object.fromEntries(
      outcome.output
        .trim()
        .split('\n')
        .map((line) => line.split(' '))
        .map(([name, soft, same, above]) => [name, {soft: Number(soft), same, above: Number(above)}]),
    )
    // SIGXCPU at the soft limit (named as the CPU limit), SIGKILL a second later.
    expect(limits.RLIMIT_CPU).toEqual({soft: 9, same: 'False', above: 1})
    expect(limits.RLIMIT_CORE).toEqual({soft: 0, same: 'True', above: 0})
    expect(limits.RLIMIT_NOFILE).toEqual({soft: 256, same: 'True', above: 0})
    expect(limits.RLIMIT_FSIZE.same).toBe('True')
    expect(limits.RLIMIT_AS.same).toBe('True')
  })

  test('every program starts fresh: nothing survives from the one before', async () => {
    const engine = await createEngine({warm_pool: 2})
    const first = await engine.run(
      py(`
      import builtins, os
      builtins.leftover = 1
      open("state.txt", "w").write("x")
      print(os.getcwd())
    `),
    )
    const second = await engine.run(
      py(`
      import builtins, os
      print(os.getcwd())
      print(hasattr(builtins, "leftover"), os.path.exists("state.txt"))
    `),
    )
    const [cwd2, seen] = second.output.trim().split('\n')
    expect(cwd2).not.toBe(first.output.trim())
    expect(seen).toBe('False False')
  })

  test('the scratch directory is removed afterwards, without following links planted in it', async () => {
    const outside = await tempDir()
    await writeFile(join(outside, 'keep.txt'), 'precious')
    const engine = await createEngine({warm_pool: 0})
    const outcome = await engine.run(
      py(`
      import os
      os.symlink(${JSON.stringify(outside)}, "link-to-dir")
      os.symlink(${JSON.stringify(join(outside, 'keep.txt'))}, "link-to-file")
      os.makedirs("sub/deeper")
      os.symlink(${JSON.stringify(outside)}, "sub/deeper/link")
      open("sub/file.txt", "w").write("scratch data")
      print(os.getcwd())
    `),
    )
    expect(outcome.ok).toBe(true)
    const scratch = outcome.output.trim()
    expect(scratch.startsWith(join(scratchRoot(tmpdir()), SCRATCH_PREFIX))).toBe(true)
    await engine.close()
    expect(existsSync(scratch)).toBe(false)
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('precious')
  })
})

describe('tool calls', () => {
  test('tools are async functions taking keyword arguments; results come back parsed', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({}, host)
    const outcome = await engine.run(
      py(`
      r = await mcp__local__echo(text="hi", n=[1, 2], nested={"a": None})
      print(type(r).__name__, r)
    `),
    )
    expect(outcome.output).toBe("dict {'text': 'hi', 'n': [1, 2], 'nested': {'a': None}}\n")
    expect(host.calls.map((c) => c.args)).toEqual([{text: 'hi', n: [1, 2], nested: {a: null}}])
    expect(outcome.tool_calls).toEqual([
      {
        tool: 'mcp__local__echo',
        args: {text: 'hi', n: [1, 2], nested: {a: null}},
        ok: true,
        ms: expect.any(Number),
      },
    ])
  })

  test('a tool name the program writes that is not listed raises ToolError, not NameError', async () => {
    // globals() in the program: names may be bound unseen, so the preflight check leaves them to run time.
    const outcome = await run(
      py(`
      names = globals()
      try:
          await mcp__local__ehco(text="x")
      except ToolError as e:
          print(e)
      def later():
          return mcp__gone__tool
      print(later().__name__)
    `),
    )
    expect(outcome.output).toBe(
      "Unknown tool 'mcp__local__ehco'. Did you mean mcp__local__echo?\nmcp__gone__tool\n",
    )
  })

  test('positional or non-JSON arguments raise TypeError in the program and reach nobody', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({}, host)
    // Called through a name of the program's own: the preflight check leaves the call to run time.
    const outcome = await engine.run(
      py(`
      echo = mcp__local__echo
      for attempt in [
          lambda: echo("positional"),
          lambda: echo(value=object()),
          lambda: echo(value=float("nan")),
          lambda: echo(value={1, 2}),
      ]:
          try:
              await attempt()
          except TypeError as e:
              print("TypeError:", str(e).split(";")[0].split(" (")[0])
    `),
    )
    expect(outcome.output).toBe(
      [
        'TypeError: mcp__local__echo() takes keyword arguments only',
        'TypeError: mcp__local__echo(): arguments must be JSON-serialisable',
        'TypeError: mcp__local__echo(): arguments must be JSON-serialisable',
        'TypeError: mcp__local__echo(): arguments must be JSON-serialisable',
        '',
      ].join('\n'),
    )
    expect(host.calls).toHaveLength(0)
  })

  test('a failed call raises ToolError, an Exception the program can catch and go on', async () => {
    const outcome = await run(
      py(`
      print(issubclass(ToolError, Exception))
      try:
          await mcp__local__fail(message="no such ticker: ZZZ")
      except ToolError as e:
          print("caught:", e)
      await mcp__local__fail(message="uncaught")
    `),
    )
    expect(outcome.output).toBe('True\ncaught: no such ticker: ZZZ\n')
    expect(outcome.error).toMatch(
      /File "<program>", line 6, in <module>\n {4}await mcp__local__fail\(message="uncaught"\)\n/,
    )
    expect(outcome.error).toMatch(/\nToolError: uncaught$/)
    expect(outcome.text).toContain('[tool calls: 2, 2 failed; ')
    // The caught error was printed: the trace points there instead of saying it again.
    expect(outcome.text).toContain(
      '  failed: mcp__local__fail {"message":"no such ticker: ZZZ"} (error above)\n',
    )
    expect(outcome.text).toMatch(/ {2}failed: mcp__local__fail \{"message":"uncaught"\}: uncaught$/)
  })

  test('the budget raises ToolError at exactly call N+1, and the helpers are not counted', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({max_tool_calls: 3}, host)
    const outcome = await engine.run(
      py(`
      for _ in range(5):
          await list_callable_tools()
          await server_status()
          await inspect_tool(tool_name="mcp__local__echo")
      for i in range(1, 6):
          try:
              await mcp__local__echo(i=i)
              print("ok", i)
          except ToolError as e:
              print("refused", i, "budget" in str(e))
    `),
    )
    expect(outcome.output).toBe('ok 1\nok 2\nok 3\nrefused 4 True\nrefused 5 True\n')
    expect(host.calls).toHaveLength(3)
  })

  test('the helpers describe the tools and the servers', async () => {
    const outcome = await run(
      py(`
      print(await list_callable_tools())
      info = await inspect_tool(tool_name="mcp__local__echo")
      print(info["name"], info["signature"].startswith("await mcp__local__echo("))
      print([(s["name"], s["connected"]) for s in await server_status()])
      try:
          await inspect_tool(tool_name="mcp__local__ecoh")
      except ToolError as e:
          print(e)
    `),
    )
    expect(outcome.output).toBe(
      [
        "['mcp__local__big', 'mcp__local__echo', 'mcp__local__fail', 'mcp__local__sleep']",
        'mcp__local__echo True',
        "[('local', True)]",
        "Unknown tool 'mcp__local__ecoh'. Did you mean mcp__local__echo?",
        '',
      ].join('\n'),
    )
  })

  test('a gather of many calls never has more than max_concurrent_calls in flight', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({max_concurrent_calls: 3}, host)
    const outcome = await engine.run(
      py(`
      import asyncio
      results = await asyncio.gather(*[mcp__local__sleep(ms=300) for _ in range(12)])
      print(len(results), results[0])
    `),
    )
    // 300 ms each: on a loaded box too, all 12 are asked for before the first 3 are done.
    expect(outcome.output).toBe('12 slept 300\n')
    expect(host.peak).toBe(3)
    expect(outcome.tool_calls).toHaveLength(12)
  })

  test('the per-call timeout is the host call limit', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({tool_call_timeout_seconds: 1}, host)
    const outcome = await engine.run(
      'try:\n    await mcp__local__sleep(ms=60000)\nexcept ToolError as e:\n    print("caught", e)',
    )
    expect(outcome.output).toBe('caught timed out after 1000 ms\n')
    expect(host.calls[0]?.options.timeoutMs).toBe(1000)
  })

  test('a call the program stops waiting for is traced as cancelled', async () => {
    const outcome = await run(
      py(`
      import asyncio
      try:
          await asyncio.wait_for(mcp__local__sleep(ms=1000), 0.05)
      except asyncio.TimeoutError:
          print("gave up")
      # The call ends (1 s) while the program still runs, with room on either side for a loaded box.
      await asyncio.sleep(3)
    `),
    )
    expect(outcome.output).toBe('gave up\n')
    expect(outcome.tool_calls).toEqual([
      expect.objectContaining({ok: false, error: expect.stringMatching(/cancelled/)}),
    ])
  })

  test('a large result reaches the program intact', async () => {
    const outcome = await run('r = await mcp__local__big(bytes=5_000_000)\nprint(len(r), set(r))')
    expect(outcome.output).toBe("5000000 {'x'}\n")
  })

  test('arguments larger than the channel carries raise ToolError before sending', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({max_tool_result_bytes: 10_000}, host)
    const outcome = await engine.run(
      'try:\n    await mcp__local__echo(blob="x" * 20000)\nexcept ToolError as e:\n    print("refused:", "limit" in str(e))',
    )
    expect(outcome.output).toBe('refused: True\n')
    expect(host.calls).toHaveLength(0)
  })

  test('lone surrogates in arguments survive the channel', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({}, host)
    const outcome = await engine.run(
      'r = await mcp__local__echo(s="a\\ud800b")\nprint(r["s"] == "a\\ud800b")',
    )
    expect(outcome.output).toBe('True\n')
    expect(host.calls[0]?.args.s).toBe('a\uD800b')
  })

  test('progress: onToolCallDone reports every finished call', async () => {
    const seen: [number, string][] = []
    const outcome = await run(
      'await mcp__local__echo(a=1)\ntry:\n    await mcp__local__fail()\nexcept ToolError:\n    pass',
      {
        onToolCallDone: (finished, call) => seen.push([finished, `${call.tool}:${call.ok}`]),
      },
    )
    expect(outcome.ok).toBe(true)
    expect(seen).toEqual([
      [1, 'mcp__local__echo:true'],
      [2, 'mcp__local__fail:false'],
    ])
  })

  test('trace: off leaves the summary out of the text but keeps tool_calls', async () => {
    const engine = await createEngine({trace: 'off'})
    const outcome = await engine.run('await mcp__local__echo(a=1)\nprint("x")')
    expect(outcome.text).toBe('[Script executed successfully]\nx')
    expect(outcome.tool_calls).toHaveLength(1)
  })
})

describe('emit', () => {
  test('the last emit() wins and is returned as the result', async () => {
    const outcome = await run('emit({"a": 1})\nemit({"rows": [1, 2], "name": "é"})\nprint("done")')
    expect(outcome).toMatchObject({ok: true, result: {rows: [1, 2], name: 'é'}})
    expect(outcome.text).toBe(
      '[Script executed successfully]\ndone\n--- result ---\n{\n  "rows": [\n    1,\n    2\n  ],\n  "name": "é"\n}',
    )
  })

  test('emit(None) is a result too; no emit means none', async () => {
    expect((await run('emit(None)')).text).toBe(
      '[Script executed successfully]\n(no output)\n--- result ---\nnull',
    )
    expect((await run('pass')).text).not.toContain('--- result ---')
  })

  test('a value that is not JSON raises TypeError; one over max_output_bytes raises ValueError', async () => {
    const engine = await createEngine({max_output_bytes: 100})
    const outcome = await engine.run(
      py(`
      emit("kept")
      for value in [object(), {1, 2}, float("inf"), "x" * 200]:
          try:
              emit(value)
          except (TypeError, ValueError) as e:
              print(type(e).__name__)
    `),
    )
    expect(outcome).toMatchObject({
      ok: true,
      output: 'TypeError\nTypeError\nTypeError\nValueError\n',
      result: 'kept',
    })
  })

  test('a failed program returns no result', async () => {
    const outcome = await run('emit(1)\nraise ValueError("x")')
    expect(outcome).toMatchObject({ok: false, result: null})
  })
})

describe('lifecycle', () => {
  test('aborting the signal kills the program at once', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({}, host)
    const controller = new AbortController()
    host.onCall(() => controller.abort())
    const outcome = await engine.run('print("started", flush=True)\nawait mcp__local__sleep(ms=60000)', {
      signal: controller.signal,
    })
    expect(outcome).toMatchObject({ok: false, output: 'started\n'})
    expect(outcome.error).toMatch(/^CancelledError: /)
    expect(host.calls[0]?.options.signal?.aborted).toBe(true)
    expect(outcome.tool_calls).toEqual([expect.objectContaining({ok: false})])
  })

  test('an already aborted signal runs nothing', async () => {
    const controller = new AbortController()
    controller.abort()
    const outcome = await run('print("never")', {signal: controller.signal})
    expect(outcome).toMatchObject({ok: false, output: ''})
    expect(outcome.error).toMatch(/^CancelledError/)
  })

  test('close() ends running programs and every child', async () => {
    const host = new LocalHost(standardTools())
    const engine = await createEngine({warm_pool: 2}, host)
    const reached = new Promise<void>((resolve) => {
      host.onCall(() => resolve())
    })
    const running = engine.run('await mcp__local__sleep(ms=60000)')
    await reached
    await engine.close()
    const outcome = await running
    expect(outcome.ok).toBe(false)
    await expect(engine.run('print(1)')).rejects.toThrow(/closed/)
  })

  test('several programs run at once, each in its own child', async () => {
    const engine = await createEngine({warm_pool: 1})
    const outcomes = await Promise.all(
      Array.from({length: 4}, (_, i) => engine.run(`import os\nprint(${i}, os.getcwd())`)),
    )
    const scratchDirs = new Set(outcomes.map((o) => o.output.trim().split(' ')[1]))
    expect(outcomes.map((o) => o.output.split(' ')[0])).toEqual(['0', '1', '2', '3'])
    expect(scratchDirs.size).toBe(4)
  })
})

/** A `none` backend whose children get a confine step: the Python module at `source`. */
async function confineBackend(source: string): Promise<SandboxBackend> {
  const dir = await tempDir()
  const module = join(dir, 'test_confine.py')
  await writeFile(module, source)
  return {
    name: 'none',
    check: noneBackend.check,
    async launch(request) {
      return {
        ...(await noneBackend.launch(request)),
        confine: {module, marker: 'from-the-backend'},
        tier: 'test',
      }
    },
  }
}

describe('the confine hook', () => {
  test('the module is imported by path and apply(spec) runs before the program', async () => {
    const sandbox = await confineBackend(
      'import builtins\ndef apply(spec):\n    builtins.confined_with = spec["marker"]\n    return {"tier": "test:applied"}\n',
    )
    const engine = await createEngine({warm_pool: 0}, undefined, sandbox)
    const outcome = await engine.run('import builtins\nprint(builtins.confined_with)')
    expect(outcome).toMatchObject({ok: true, output: 'from-the-backend\n', sandbox: 'test:applied'})
  })

  test('a confine step that raises refuses to run the program, with a SandboxError', async () => {
    const sandbox = await confineBackend(
      'def apply(spec):\n    raise RuntimeError("Landlock is not available")\n',
    )
    for (const warm_pool of [0, 1]) {
      const engine = await createEngine({warm_pool}, undefined, sandbox)
      const outcome = await engine.run('print("must not run")')
      expect(outcome.ok).toBe(false)
      expect(outcome.output).toBe('')
      expect(outcome.error).toMatch(/^SandboxError: .*\(confine\): RuntimeError: Landlock is not available/)
      expect(outcome.text).toMatch(/^\[Script execution failed\]\nSandboxError: /)
    }
  })
})

describe('through the real tool registry and fixture server', () => {
  let registry: ToolRegistry

  beforeAll(async () => {
    registry = await startFixtureRegistry()
  })

  afterAll(async () => {
    await registry.close()
  })

  test('calls, errors and the per-call timeout behave as SPEC §6 says', async () => {
    const engine = await createEngine({tool_call_timeout_seconds: 1}, registry)
    const outcome = await engine.run(
      py(`
      print(await mcp__fixture__add(a=2, b=3))
      print(await mcp__fixture__echo(text="hi", upper=True))
      for call in [lambda: mcp__fixture__is_error(message="server said no"), lambda: mcp__fixture__hang()]:
          try:
              await call()
          except ToolError as e:
              print("ToolError:", str(e)[:40])
    `),
    )
    expect(outcome.ok).toBe(true)
    const lines = outcome.output.trim().split('\n')
    expect(lines[0]).toBe("{'sum': 5}")
    expect(lines[1]).toBe('HI')
    expect(lines[2]).toBe('ToolError: server said no')
    expect(lines[3]).toMatch(/^ToolError: .*(time|Time)/)
    expect(outcome.text).toMatch(/\[tool calls: 4, 2 failed; \d+\.\ds\]/)
  })
})
