// @tier sandbox
/**
 * Programs that try to break the state between programs (SPEC §6.2, §15): values over the bounds,
 * too many keys, values nested 200,000 deep, links in ./session/, two programs storing one key at
 * once, messages forged past the runner's own checks. Each is refused with a ToolError naming the
 * bound (or left out, and said so), nothing stored before is lost, serve answers the next request
 * with its memory bounded, and nothing of one serve process is readable from another.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {FORGED_ID, RAW_CHANNEL} from '../helpers/raw-channel.js'
import {execute, expectCleanShutdown} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const MiB = 1024 * 1024
/** serve idles near 90 MB here; 16 MiB values cross the channel, and a session keeps up to 64 MiB. */
const PEAK_RSS_MB = 512

/** A program that stores `value` (Python) under `key` and prints the ToolError's kind, or "ok". */
const tryStore = (key: string, value: string): string =>
  [
    'try:',
    `    await store(${JSON.stringify(key)}, ${value})`,
    '    print("ok")',
    'except ToolError as e:',
    '    print(e.kind, e.message)',
  ].join('\n')

describe('hostile state (SPEC §6.2, §15)', () => {
  let setup: ServeSetup
  let small: ServeSetup
  let serve: RawServe
  let tight: RawServe

  const peakRssMb = () =>
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${serve.child.pid}/status`, 'utf8'))?.[1]) / 1024

  beforeAll(async () => {
    const execution = {timeout_seconds: 60, trace: 'full'}
    setup = prepareServe({servers: [], execution})
    small = prepareServe({
      servers: [],
      execution,
      state: {max_bytes: 64 * 1024, max_value_bytes: 16 * 1024, max_keys: 20, max_session_files: 3},
    })
    ;[serve, tight] = await Promise.all([startRawServe(setup), startRawServe(small)])
    await execute(serve, 'await store("earlier", {"kept": True})')
  }, 60_000)

  beforeEach(() => {
    // Resets the peak RSS (VmHWM) of serve: each test measures its own attack.
    writeFileSync(`/proc/${serve.child.pid}/clear_refs`, '5')
  })

  afterAll(async () => {
    if (serve) await expectCleanShutdown(serve, setup)
    if (tight) await expectCleanShutdown(tight, small)
    setup?.cleanup()
    small?.cleanup()
  })

  /** Serve answers, kept what was stored before, and stayed under the memory bound. */
  async function expectHealthy(): Promise<void> {
    const next = await execute(serve, 'print(await load("earlier"))')
    expect(next.structured.output).toBe("{'kept': True}\n")
    expect(peakRssMb()).toBeLessThan(PEAK_RSS_MB)
  }

  it('a value of 17 MiB: ToolError max_value_bytes, nothing sent, nothing lost', async () => {
    const run = await execute(serve, tryStore('huge', '"x" * (17 * 1024 * 1024)'))
    expect(run.structured.output).toMatch(
      /^max_value_bytes store\(\): the value is about \d+ bytes of JSON, over the 16777216-byte limit per value \(state\.max_value_bytes\)/,
    )
    // Nothing stored, no call: no trace.
    expect(run.structured).not.toHaveProperty('trace')
    await expectHealthy()
  })

  it("a store forged past the runner's check (16 MiB + 1 KiB): the parent refuses it", async () => {
    const size = 16 * MiB + 1024
    const run = await execute(
      serve,
      `${RAW_CHANNEL}send(b'{"type":"helper","name":"store","args":{"key":"forged","value":"' + b'x' * ${size} + b'"},"id":${FORGED_ID}}\\n')\ntime.sleep(0.5)\nprint("sent")`,
    )
    expect(run.structured).toMatchObject({ok: true, output: 'sent\n'})
    expect(run.structured).not.toHaveProperty('trace')
    const after = await execute(serve, 'print(await load("forged", "absent"), "forged" in await stored())')
    expect(after.structured.output).toBe('absent False\n')
    await expectHealthy()
  })

  it('a value nested 200,000 deep, or 70 deep: ToolError too_large; a forged one is refused unparsed', async () => {
    const deep = (levels: number) => `(lambda: [v := [], [v := [v] for _ in range(${levels})], v][2])()`
    const run = await execute(
      serve,
      [tryStore('deep', deep(200_000)), tryStore('deep70', deep(70)), tryStore('deep60', deep(60))].join(
        '\n',
      ),
    )
    expect(run.structured.output).toBe(
      [
        'too_large store(): the value is nested too deep to keep; flatten it',
        'too_large store("deep70"): the value is nested deeper than 64 levels; flatten it',
        'ok',
        '',
      ].join('\n'),
    )
    const forged = await execute(
      serve,
      `${RAW_CHANNEL}send(b'{"type":"helper","name":"store","args":{"key":"forged_deep","value":' + b'[' * 200000 + b']' * 200000 + b'},"id":${FORGED_ID}}\\n')\ntime.sleep(0.5)\nprint("sent")`,
    )
    expect(forged.structured).toMatchObject({ok: true, output: 'sent\n'})
    const after = await execute(serve, 'print(sorted(await stored()))')
    expect(after.structured.output).toBe("['deep60', 'earlier']\n")
    await expectHealthy()
  })

  it('a large value loaded 100 times at once: answered from one copy, serve stays bounded', async () => {
    await execute(serve, 'await store("big8", "x" * (8 * 1024 * 1024))')
    const run = await execute(
      serve,
      [
        'tasks = [asyncio.ensure_future(load("big8")) for _ in range(100)]',
        'total = 0',
        'for i in range(100):',
        '    total += len(await tasks[i])',
        '    tasks[i] = None',
        'print(total)',
      ].join('\n'),
      120_000,
    )
    // The child may run out of its own memory holding the answers; serve must not.
    if (run.structured.ok) expect(run.structured.output).toBe(`${100 * 8 * MiB}\n`)
    await execute(serve, 'await forget("big8")')
    await expectHealthy()
  }, 150_000)

  it('links and special files in ./session/: never followed, never carried, said so', async () => {
    const run = await execute(
      serve,
      [
        'import os',
        'open("session/good.txt", "w").write("fine")',
        'os.symlink("/etc/passwd", "session/evil")',
        'os.symlink("/etc", "session/dir")',
        'os.symlink("good.txt", "session/inside")',
        // The sandbox may refuse mknod; where it allows one, a FIFO is never read.
        'try:',
        '    os.mkfifo("session/fifo")',
        'except OSError:',
        '    pass',
      ].join('\n'),
    )
    expect(run.structured.ok, run.text).toBe(true)
    expect(run.structured.trace).toMatch(
      /^\[session\/: 1 file, 4 bytes\]\n {2}not kept: session\/dir \(a link: links are not followed\); session\/evil \(a link: links are not followed\); (session\/fifo \(not a regular file\); )?session\/inside \(a link: links are not followed\)$/,
    )
    const next = await execute(
      serve,
      'import os\nprint(sorted(os.listdir("session")), open("session/good.txt").read())',
    )
    expect(next.structured.output).toBe("['good.txt'] fine\n")
    await expectHealthy()
  })

  it('two programs storing the same key at once, many times: one whole value, the bytes counted once', async () => {
    const writer = (letter: string) =>
      `for i in range(200):\n    await store("same", "${letter}" * (1000 + i))\nprint("done")`
    const runs = await Promise.all(['a', 'b', 'c'].map((letter) => execute(serve, writer(letter))))
    for (const run of runs) expect(run.structured.output).toBe('done\n')
    const check = await execute(
      serve,
      'v = await load("same")\nprint(len(set(v)), len(v), (await stored())["same"] == len(v) + 2)',
    )
    expect(check.structured.output).toBe('1 1199 True\n')
    await expectHealthy()
  })

  it('10,000 keys: the first max_keys are kept, then ToolError max_keys; a program cannot spend more than its helper budget', async () => {
    const run = await execute(
      tight,
      [
        'kinds = {}',
        'for i in range(10000):',
        '    try:',
        '        await store(f"k{i}", i)',
        '        kinds["ok"] = kinds.get("ok", 0) + 1',
        '    except ToolError as e:',
        '        kinds[e.kind] = kinds.get(e.kind, 0) + 1',
        'print(kinds)',
      ].join('\n'),
    )
    // 20 keys (state.max_keys), then max_keys until the 1,000 helper calls of a program are spent.
    expect(run.structured.output).toBe("{'ok': 20, 'max_keys': 980, 'budget': 9000}\n")
    expect(run.structured.trace).toMatch(
      /^\[stored: k0 1 bytes, k1 1 bytes, k2 1 bytes, k3 1 bytes, k4 1 bytes, 15 more\]$/,
    )
    const next = await execute(
      tight,
      [tryStore('k0', '"replaced"'), tryStore('new', '1'), 'print(len(await stored()))'].join('\n'),
    )
    expect(next.structured.output).toMatch(
      /^ok\nmax_keys store\("new"\): 20 keys are stored already \(state\.max_keys\)[^\n]*\n20\n$/,
    )
  })

  it('values and ./session/ files share max_bytes; over it, ToolError max_bytes or files left out, nothing lost', async () => {
    const run = await execute(
      tight,
      [
        'for i in range(20):',
        '    await forget(f"k{i}")',
        'await forget("new")',
        tryStore('a', '"a" * 15000'),
        tryStore('b', '"b" * 15000'),
        tryStore('c', '"c" * 15000'),
        tryStore('d', '"d" * 15000'),
        tryStore('e', '"e" * 15000'),
        // A value over state.max_value_bytes (16 KiB) in this serve.
        tryStore('f', '"f" * 17000'),
        'for name in ["one", "two", "three", "four"]:',
        '    open(f"session/{name}", "w").write(name)',
      ].join('\n'),
    )
    const lines = run.output.split('\n')
    expect(lines.slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(lines[4]).toMatch(
      /^max_bytes store\("e"\): 15002 more bytes would make \d+, over the 64 KiB this session keeps \(state\.max_bytes/,
    )
    expect(lines[5]).toMatch(/^max_value_bytes /)
    // Three files fit in max_session_files; the fourth does not (nor would its bytes).
    expect(run.structured.trace).toContain('session/: 3 files')
    expect(run.structured.trace).toMatch(/not kept: session\/(two|three|one|four) \(/)
    const next = await execute(
      tight,
      'import os\nprint(sorted(await stored()), len(os.listdir("session")), len(await load("d")))',
    )
    expect(next.structured.output).toBe("['a', 'b', 'c', 'd'] 3 15000\n")
    // A file that would go over max_bytes is left out; the one it would replace stays.
    const grow = await execute(
      tight,
      'import os\nname = sorted(os.listdir("session"))[0]\nopen(f"session/{name}", "w").write("x" * 20000)\nprint(name)',
    )
    const name = grow.output.trim()
    expect(grow.structured.trace).toContain(`not kept: session/${name} (over 64 KiB in total per session)`)
    const kept = await execute(tight, `print(open("session/${name}").read())`)
    expect(kept.structured.output).toBe(`${name}\n`)
  })
})
