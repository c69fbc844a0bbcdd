// @tier integration
/**
 * State between programs (SPEC §6.2), through a real `serve` over stdio: the values a program
 * stores and the files it leaves in ./session/ are there for the next program of the same serve
 * process, and of no other; `ptc-mcp run --state FILE` carries them from one run to the next.
 * Real server-filesystem from npm, our fixture server, real sandboxed Python children.
 */
import {mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {execute, expectCleanShutdown, serves, waitForListing} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup, spawnCli} from '../helpers/serve.js'
import {testDependency} from '../helpers/test-deps.js'

const FILESYSTEM = testDependency('@modelcontextprotocol/server-filesystem/dist/index.js')

/** 20 files; file i has i + 1 lines. */
const FILES = Array.from({length: 20}, (_, i) => `f${String(i).padStart(2, '0')}.txt`)

/** Program 1: fetches the 20 files, stores a summary dict and leaves a CSV in ./session/. */
const fetchAndKeep = (dir: string): string =>
  [
    'import csv',
    `names = ${JSON.stringify(FILES)}`,
    `rs = await asyncio.gather(*[mcp__fs__read_text_file(path=${JSON.stringify(dir)} + "/" + n) for n in names])`,
    'rows = [(n, len(r["content"].splitlines())) for n, r in zip(names, rs)]',
    'await store("summary", {"files": len(rows), "lines": sum(n for _, n in rows)})',
    'with open("session/lines.csv", "w", newline="") as f:',
    '    w = csv.writer(f)',
    '    w.writerow(["file", "lines"])',
    '    w.writerows(rows)',
    'print("kept")',
  ].join('\n')

/** Program 2: answers from what program 1 kept, without one tool call. */
const ANSWER_FROM_STATE = [
  'import csv',
  's = await load("summary")',
  'rows = list(csv.DictReader(open("session/lines.csv")))',
  'longest = max(rows, key=lambda r: int(r["lines"]))',
  'print(s["files"], s["lines"], len(rows), longest["file"], longest["lines"])',
].join('\n')

describe('state between programs of one serve session (SPEC §6.2)', () => {
  let setup: ServeSetup
  let other: ServeSetup
  let serve: RawServe
  let dataDir: string

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ptc-state-data-'))
    for (const [i, name] of FILES.entries())
      writeFileSync(join(dataDir, name), Array.from({length: i + 1}, (_, n) => `line ${n}`).join('\n'))
    const config = {
      servers: [
        {name: 'fs', command: process.execPath, args: [FILESYSTEM, dataDir]},
        {name: 'fx', ...fixtureCommand(['--name', 'fx'])},
      ],
      execution: {timeout_seconds: 60, trace: 'full'},
    }
    setup = prepareServe(config)
    other = prepareServe(config)
    serve = await startRawServe(setup)
    await waitForListing(
      serve,
      ['fx'],
      (l) => serves(l, 'fx') && l.names.includes('mcp__fs__read_text_file'),
      {
        what: 'fs and fx connected',
        timeoutMs: 30_000,
      },
    )
  }, 60_000)

  afterAll(async () => {
    if (serve) await expectCleanShutdown(serve, setup)
    setup?.cleanup()
    other?.cleanup()
    rmSync(dataDir, {force: true, recursive: true})
  })

  it('program 1 fetches 20 files and keeps a summary and a CSV; program 2 answers from them with no tool call', async () => {
    const first = await execute(serve, fetchAndKeep(dataDir))
    expect(first.structured, first.text).toMatchObject({ok: true, output: 'kept\n'})
    expect(first.calls).toHaveLength(20)
    // The trace names what the program kept, in the text and in the structured content.
    const stateLine = /^\[stored: summary 24 bytes; session\/: 1 file, \d+ bytes\]$/m
    expect(first.text).toMatch(stateLine)
    expect(first.structured.trace).toMatch(stateLine)

    const second = await execute(serve, ANSWER_FROM_STATE)
    expect(second.structured, second.text).toMatchObject({
      ok: true,
      output: '20 210 20 f19.txt 20\n',
    })
    // No call, nothing stored: no trace.
    expect(second.structured).not.toHaveProperty('trace')
    expect(second.structured).not.toHaveProperty('calls')
  })

  it('load() of a missing key gives the default; stored() lists keys with sizes; forget() removes one', async () => {
    const run = await execute(
      serve,
      [
        'await store("gone", [1, 2, 3])',
        'print(await load("nothing"), await load("nothing", default=7), await load("gone"))',
        'print(await stored())',
        'print(await forget("gone"), await forget("gone"), await load("gone", "-"))',
        'await store("nothing_at_all", None)',
        'print(await load("nothing_at_all", "default"))',
      ].join('\n'),
    )
    expect(run.structured.output).toBe("None 7 [1, 2, 3]\n{'summary': 24, 'gone': 7}\nTrue False -\nNone\n")
    expect(run.structured.trace).toBe('[stored: nothing_at_all 4 bytes; forgot: gone]')
  })

  it('a Media value comes back as Media, its bytes whole', async () => {
    await execute(serve, 'r = await mcp__fx__image()\nawait store("picture", {"m": r["_media"]})')
    const run = await execute(
      serve,
      [
        'p = await load("picture")',
        'm = p["m"][0]',
        'print(type(m).__name__, m.type, m.mime_type, m.bytes()[:4])',
      ].join('\n'),
    )
    expect(run.structured.output).toBe("Media image image/png b'\\x89PNG'\n")
  })

  it('two programs storing the same key at once: one whole value wins, nothing is mixed or counted twice', async () => {
    const writer = (letter: string) =>
      [
        'for i in range(50):',
        `    await store("race", {"by": "${letter}", "data": "${letter}" * 100000, "i": i})`,
        'print("done")',
      ].join('\n')
    const [a, b] = await Promise.all([execute(serve, writer('a')), execute(serve, writer('b'))])
    expect(a.structured.output).toBe('done\n')
    expect(b.structured.output).toBe('done\n')
    const check = await execute(
      serve,
      [
        'v = await load("race")',
        'print(v["by"], v["data"] == v["by"] * 100000, v["i"], (await stored())["race"])',
      ].join('\n'),
    )
    expect(check.structured.output).toMatch(/^[ab] True 49 100027\n$/)
  })

  it('a 20 MiB file and a nested one in ./session/ arrive whole in the next program; a failed program still passes its files on', async () => {
    const first = await execute(
      serve,
      [
        'import hashlib, os',
        'data = os.urandom(20 * 1024 * 1024)',
        'os.makedirs("session/a/b", exist_ok=True)',
        'open("session/a/b/big.bin", "wb").write(data)',
        'open("session/empty", "wb").close()',
        'print(hashlib.sha256(data).hexdigest())',
        'raise ValueError("after writing")',
      ].join('\n'),
    )
    expect(first.structured.ok).toBe(false)
    expect(first.structured.trace).toMatch(/session\/: 2 files, 20\.0 MB/)
    const digest = /--- output before the error ---\n([0-9a-f]{64})/.exec(first.text)?.[1]
    const second = await execute(
      serve,
      [
        'import hashlib, os',
        'print(hashlib.sha256(open("session/a/b/big.bin", "rb").read()).hexdigest(), os.path.getsize("session/empty"))',
        'os.remove("session/a/b/big.bin")',
        'os.remove("session/empty")',
      ].join('\n'),
    )
    expect(second.structured.output).toBe(`${digest} 0\n`)
    expect(second.structured.trace).toBe('[session/: 2 removed]')
  })

  it('another serve process (another client session) reads nothing of this one', async () => {
    const second = await startRawServe(other)
    try {
      const run = await execute(
        second,
        'import os\nprint(await stored(), await load("summary", "none"), os.listdir("session"))',
      )
      expect(run.structured.output).toBe('{} none []\n')
    } finally {
      await expectCleanShutdown(second, other)
    }
    // This session still has its own.
    const mine = await execute(serve, 'print((await load("summary"))["files"])')
    expect(mine.structured.output).toBe('20\n')
  })
})

describe('ptc-mcp run --state FILE (SPEC §6.2)', () => {
  it('carries values and ./session/ files from one run to the next, in a 0600 file; without it, nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-state-run-'))
    try {
      const config = join(dir, 'config.yaml')
      writeFileSync(config, 'execution: {timeout_seconds: 60}\n')
      const stateFile = join(dir, 'state.json')
      const program = (name: string, code: string) => {
        writeFileSync(join(dir, name), code)
        return join(dir, name)
      }
      const env = {...process.env, TMPDIR: join(dir, 'tmp')}
      mkdirSync(env.TMPDIR)
      const run = (file: string, ...flags: string[]) =>
        spawnCli(['run', '--config', config, ...flags, file], {env, cwd: dir}).done
      const keep = program(
        'keep.py',
        'await store("n", 41)\nopen("session/note.txt", "w").write("from run 1")\nprint("kept")',
      )
      const use = program(
        'use.py',
        'import os\nprint(await load("n", "none"), open("session/note.txt").read() if os.path.exists("session/note.txt") else "no file")',
      )
      const first = await run(keep, '--state', stateFile)
      expect(first.stdout).toContain('kept')
      expect(first.stdout).toContain('[stored: n 2 bytes; session/: 1 file, 10 bytes]')
      // eslint-disable-next-line no-bitwise -- the permission bits of a mode
      expect(statSync(stateFile).mode & 0o777).toBe(0o600)
      const second = await run(use, '--state', stateFile)
      expect(second.stdout).toContain('41 from run 1')
      const without = await run(use)
      expect(without.stdout).toContain('none no file')
      writeFileSync(stateFile, '{"values": []}')
      const broken = await run(use, '--state', stateFile)
      expect(broken.code).toBe(2)
      expect(broken.stderr.replaceAll(/\s+›\s+/g, ' ')).toContain('is not a ptc-mcp state file')
      expect(readFileSync(stateFile, 'utf8')).toBe('{"values": []}')
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  }, 60_000)
})
