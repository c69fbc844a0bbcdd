/**
 * Files a program writes under ./out/ are kept (SPEC §14), through the real engine and real
 * sandboxed children in every Linux tier this machine has: regular files only, no link followed,
 * at most 64 files and 64 MiB, listed in the text. A child that forges the file messages fails
 * its own run, or has its claims refused, and nothing lands outside the run's own directory.
 * Run as root and as an unprivileged user: .ci/sandbox-tiers.sh.
 */
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {spawn} from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest'

import type {RunOutcome} from '../../src/execution/engine/engine.js'

import {pruneArtifacts} from '../../src/execution/files/artifacts.js'
import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {createLinuxBackend} from '../../src/sandbox/linux/index.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'
import {type EngineHandle, startEngine} from '../sandbox/harness.js'

const TIERS = [
  {name: 'bwrap', bwrap: true},
  {name: 'landlock+seccomp', bwrap: false},
].filter((tier) => !tier.bwrap || findBwrap() !== undefined)

const MiB = 1024 * 1024

/** The directory the run's files were kept in, from the listing. */
function keptDir(outcome: RunOutcome): string {
  const dir = /^--- files kept in (.+) ---$/m.exec(outcome.text)?.[1]
  expect(dir, outcome.text).toBeDefined()
  return dir!
}

/** Every path under `dir`, relative, with `/`. */
function tree(dir: string): string[] {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'}).sort()
}

describe.runIf(process.platform === 'linux')('./out/ files kept after the run', () => {
  test('at least the Landlock + seccomp tier is exercised', () => {
    expect(TIERS.map((tier) => tier.name)).toContain('landlock+seccomp')
  })

  describe.each(TIERS)('tier $name', ({bwrap}) => {
    let engine: EngineHandle

    beforeAll(async () => {
      engine = await startEngine(createLinuxBackend({bwrap}), {timeout_seconds: 60, warm_pool: 1})
    })
    afterAll(async () => {
      await engine?.close()
    })

    test('out/report.csv is kept and listed; a link to /etc/passwd is neither followed nor copied', async () => {
      const outcome = await engine.run(`
import os
os.makedirs("out/charts")
with open("out/report.csv", "w") as f:
    f.write("region,total\\nnorth,12\\n")
with open("out/charts/q1.txt", "w") as f:
    f.write("q1")
os.symlink("/etc/passwd", "out/evil")
os.symlink("/etc", "out/etc")
with open("not-kept.txt", "w") as f:
    f.write("outside out/")
# Readable by the program: only the runner's own rule keeps these out.
os.symlink("../not-kept.txt", "out/inner")
os.symlink("..", "out/up")
print("written")
`)
      expect(outcome.ok, outcome.text).toBe(true)
      const dir = keptDir(outcome)
      expect(dir.startsWith(join(process.env.XDG_STATE_HOME!, 'ptc-mcp', 'artifacts'))).toBe(true)
      expect(tree(dir)).toEqual(['charts', 'charts/q1.txt', 'report.csv'])
      expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toBe('region,total\nnorth,12\n')
      expect(existsSync(join(dir, 'evil')) || lstatExists(join(dir, 'evil'))).toBe(false)
      expect(outcome.text).toContain(
        [
          'written',
          `--- files kept in ${dir} ---`,
          'charts/q1.txt (2 bytes)',
          'report.csv (22 bytes)',
          'not kept: out/etc (a link: links are not followed); out/evil (a link: links are not followed); ' +
            'out/inner (a link: links are not followed); out/up (a link: links are not followed)',
        ].join('\n'),
      )
      expect(outcome.files).toEqual([
        {name: 'charts/q1.txt', path: join(dir, 'charts', 'q1.txt'), bytes: 2},
        {name: 'report.csv', path: join(dir, 'report.csv'), bytes: 22},
      ])
    })

    test('a name with bidi controls is refused like a control character, never listed as it is', async () => {
      const outcome = await engine.run(`
import os
os.makedirs("out")
for name in ["bidi\u202Etxt.exe", "iso\u2066late\u2069", "embed\u202Ax", "plain.txt"]:
    open("out/" + name, "w").write("x")
`)
      expect(outcome.ok, outcome.text).toBe(true)
      expect(tree(keptDir(outcome))).toEqual(['plain.txt'])
      expect(outcome.text).toMatch(/\(unprintable name\) \(a name that cannot be kept\)/)
      expect(outcome.text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/)
    })

    test('files written before the program failed are kept too', async () => {
      const outcome = await engine.run(`
import os
os.makedirs("out")
open("out/partial.txt", "w").write("so far")
raise ValueError("boom")
`)
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toContain('ValueError: boom')
      expect(readFileSync(join(keptDir(outcome), 'partial.txt'), 'utf8')).toBe('so far')
    })

    test('65 files: 64 are kept and the note names the first one left out', async () => {
      const outcome = await engine.run(`
import os
os.makedirs("out")
for i in range(65):
    open(f"out/f{i:02d}.txt", "w").write(str(i))
`)
      expect(outcome.ok, outcome.text).toBe(true)
      const dir = keptDir(outcome)
      expect(tree(dir)).toEqual(Array.from({length: 64}, (_, i) => `f${String(i).padStart(2, '0')}.txt`))
      expect(outcome.files).toHaveLength(64)
      expect(outcome.text).toContain('not kept: out/f64.txt (and any after it: at most 64 files per run)')
    })

    test('65 MiB: 64 MiB are kept, the file that does not fit is left out with a note', async () => {
      const outcome = await engine.run(`
import os
os.makedirs("out")
block = bytes(range(256)) * 4096
for name in ("a0", "a1", "a2", "a3"):
    with open(f"out/{name}.bin", "wb") as f:
        for _ in range(16):
            f.write(block)
open("out/b.bin", "wb").write(block)
`)
      expect(outcome.ok, outcome.text).toBe(true)
      const dir = keptDir(outcome)
      expect(tree(dir)).toEqual(['a0.bin', 'a1.bin', 'a2.bin', 'a3.bin'])
      const sizes = tree(dir).map((name) => lstatSync(join(dir, name)).size)
      expect(sizes).toEqual([16 * MiB, 16 * MiB, 16 * MiB, 16 * MiB])
      const kept = readFileSync(join(dir, 'a3.bin'))
      expect(kept.subarray(0, 256).equals(Buffer.from(Array.from({length: 256}, (_, i) => i)))).toBe(true)
      expect(outcome.text).toContain('not kept: out/b.bin (over 64 MiB in total per run)')
    })

    test('no ./out/ directory: nothing is listed', async () => {
      const outcome = await engine.run('print("nothing kept")')
      expect(outcome.text).toBe('[Script executed successfully]\nnothing kept')
      expect(outcome.files).toEqual([])
    })

    describe('a child that forges the file messages', () => {
      const forge = (lines: string) => `
import json, os, time
def send(message):
    data = (message if isinstance(message, bytes) else json.dumps(message).encode()) + b"\\n"
    while data:
        data = data[os.write(255, data):]
${lines}
time.sleep(30)
`

      test('names that would leave out/ are refused, and nothing is written outside the run directory', async () => {
        const outcome = await engine.run(
          forge(`
for name in ["../escape", "/tmp/abs", "a/../../b", "x\\ny", "ok.txt"]:
    send({"type": "file", "name": name})
    send({"type": "file_data", "data": "aGk="})
send({"type": "done", "ok": True, "error": None, "has_result": False, "result": None})
`),
        )
        expect(outcome.ok, outcome.text).toBe(true)
        const dir = keptDir(outcome)
        expect(tree(dir)).toEqual(['ok.txt'])
        expect(tree(join(dir, '..'))).toEqual(['out', 'out/ok.txt'])
        expect(outcome.text).toContain(
          'not kept: out/../escape (a name that cannot be kept); out//tmp/abs (a name that cannot be kept); ' +
            'out/a/../../b (a name that cannot be kept); out/(unprintable name) (a name that cannot be kept)',
        )
      })

      test('more than 64 files or 64 MiB are refused by the server whatever the child claims', async () => {
        const outcome = await engine.run(
          forge(`
import base64
chunk = base64.b64encode(bytes(1024 * 1024)).decode()
for i in range(70):
    send({"type": "file", "name": f"f{i}"})
    send({"type": "file_data", "data": chunk})
send({"type": "done", "ok": True, "error": None, "has_result": False, "result": None})
`),
        )
        expect(outcome.ok, outcome.text).toBe(true)
        const dir = keptDir(outcome)
        expect(tree(dir)).toHaveLength(64)
        expect(outcome.text).toContain('not kept: out/f64 (and any after it: at most 64 files per run)')

        const big = await engine.run(
          forge(`
import base64
chunk = base64.b64encode(bytes(1024 * 1024)).decode()
send({"type": "file", "name": "big"})
for i in range(70):
    send({"type": "file_data", "data": chunk})
send({"type": "done", "ok": True, "error": None, "has_result": False, "result": None})
`),
        )
        expect(big.ok, big.text).toBe(true)
        expect(big.files).toEqual([])
        expect(big.text).toContain('not kept: out/big (over 64 MiB in total per run)')
      })

      test('file data before any file, an oversized chunk or data that is not base64 ends the run', async () => {
        for (const [lines, reason] of [
          ['send({"type": "file_data", "data": "aGk="})', 'file data arrived before any file was begun'],
          [
            'send({"type": "file", "name": "a"}); send({"type": "file_data", "data": "A" * (2 * 1024 * 1024)})',
            'file data over',
          ],
          [
            'send({"type": "file", "name": "a"}); send({"type": "file_data", "data": "not base64!"})',
            'not base64',
          ],
          ['send({"type": "file_skipped", "name": "a", "reason": "whatever"})', 'file_skipped'],
        ] as const) {
          const outcome = await engine.run(forge(lines))
          expect(outcome.ok, lines).toBe(false)
          expect(outcome.error, lines).toContain(reason)
        }
      })
    })
  })
})

describe.runIf(process.platform === 'linux')('pruning', () => {
  test('a run that keeps files prunes run directories older than 7 days, and keeps its own', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-kept-prune-'))
    const old = join(root, 'old-run')
    mkdirSync(join(old, 'out'), {recursive: true})
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000)
    utimesSync(old, eightDaysAgo, eightDaysAgo)
    const engine = await startEngine(createLinuxBackend({bwrap: TIERS[0]!.bwrap}), {artifacts_dir: root})
    try {
      // The engine prunes when it starts: plant the old run again after that.
      mkdirSync(join(old, 'out'), {recursive: true})
      utimesSync(old, eightDaysAgo, eightDaysAgo)
      const outcome = await engine.run('import os\nos.makedirs("out")\nopen("out/new.txt", "w").write("new")')
      const dir = keptDir(outcome)
      // The prune runs after the answer, off the event loop.
      const ownRun = join(dir, '..').slice(root.length + 1)
      await expect.poll(() => readdirSync(root).join(','), {timeout: 10_000}).toBe(ownRun)
      expect(readFileSync(join(dir, 'new.txt'), 'utf8')).toBe('new')
    } finally {
      await engine.close()
      rmSync(root, {force: true, recursive: true})
    }
  })
})

/** A directory only this user may enter, with 20 files and a directory older than 7 days. */
function makeVictim(): string {
  const victim = mkdtempSync(join(tmpdir(), 'ptc-kept-victim-'))
  for (let n = 0; n < 20; n++) writeFileSync(join(victim, `precious-${n}`), 'x')
  mkdirSync(join(victim, 'old-dir'))
  const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000)
  utimesSync(join(victim, 'old-dir'), eightDaysAgo, eightDaysAgo)
  return victim
}

const RACER_UID = 54_322

/** Runs a Python snippet as another local user (root only: setpriv). */
function asOtherUser(script: string, ...args: string[]): Promise<string> {
  const child = spawn(
    'setpriv',
    [
      '--reuid',
      String(RACER_UID),
      '--regid',
      String(RACER_UID),
      '--clear-groups',
      '/usr/bin/python3',
      '-c',
      script,
      ...args,
    ],
    {stdio: ['ignore', 'pipe', 'inherit']},
  )
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`racer exited ${code}`))))
  })
}

/**
 * execution.artifacts_dir against another local user (SPEC §14, §15): a root that is a link,
 * another user's or open to others is neither written into nor pruned, and the engine says why.
 */
describe.runIf(process.platform === 'linux' && process.geteuid?.() === 0)(
  'the artifacts root against another local user',
  () => {
    let base: string
    let tmpMode = 0

    beforeAll(() => {
      // Let the other user traverse the test run's TMPDIR (not list it), as it could /tmp.
      tmpMode = statSync(tmpdir()).mode % 0o1000
      chmodSync(tmpdir(), 0o711)
      base = mkdtempSync(join(tmpdir(), 'ptc-kept-shared-'))
      chmodSync(base, 0o1777)
    })
    afterAll(() => {
      rmSync(base, {recursive: true, force: true})
      chmodSync(tmpdir(), tmpMode)
    })

    describe.each(TIERS)('tier $name', ({bwrap}) => {
      test('a link planted at the configured path: nothing kept, nothing pruned through it', async () => {
        const victim = makeVictim()
        const configured = join(base, `artifacts-link-${bwrap}`)
        await asOtherUser('import os, sys; os.symlink(sys.argv[2], sys.argv[1])', configured, victim)
        const engine = await startEngine(createLinuxBackend({bwrap}), {artifacts_dir: configured})
        try {
          const outcome = await engine.run(
            'import os\nos.makedirs("out")\nopen("out/new.txt", "w").write("new")\nprint("x" * 100)',
          )
          expect(outcome.ok, outcome.text).toBe(true)
          expect(outcome.text).toContain('not kept: out/new.txt (could not be written)')
          await pruneArtifacts(configured)
          expect(readdirSync(victim)).toHaveLength(21)
        } finally {
          await engine.close()
          rmSync(victim, {recursive: true, force: true})
        }
      })

      test('a root another user made, open to all: refused, and their files stay', async () => {
        const configured = join(base, `artifacts-squat-${bwrap}`)
        await asOtherUser(
          `import os, sys
r = sys.argv[1]
os.mkdir(r); os.chmod(r, 0o777)
os.mkdir(r + "/old"); os.utime(r + "/old", (0, 0))
open(r + "/planted", "w").close()`,
          configured,
        )
        const engine = await startEngine(createLinuxBackend({bwrap}), {artifacts_dir: configured})
        try {
          const outcome = await engine.run(
            'import os\nos.makedirs("out")\nopen("out/new.txt", "w").write("new")',
          )
          expect(outcome.text).toContain('not kept: out/new.txt (could not be written)')
          expect(await pruneArtifacts(configured)).toEqual([])
          expect(readdirSync(configured).sort()).toEqual(['old', 'planted'])
        } finally {
          await engine.close()
        }
      })
    })
  },
)

describe.runIf(process.platform === 'linux')('pruning raced by a directory swapped for a link', () => {
  test('the prune goes through the root descriptor: a swapped subdirectory is unlinked, never followed', async () => {
    const victim = makeVictim()
    const root = mkdtempSync(join(tmpdir(), 'ptc-kept-race-'))
    try {
      let swaps = 0
      for (let round = 0; round < 10; round++) {
        const run = join(root, `run-${round}`)
        mkdirSync(join(run, 'out', 'd'), {recursive: true})
        for (let n = 0; n < 50; n++) writeFileSync(join(run, 'out', 'd', `f${n}`), 'x')
        const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000)
        utimesSync(run, eightDaysAgo, eightDaysAgo)
        // A process of this user swapping out/d with a link to the victim, in a loop
        // (renameat2 RENAME_EXCHANGE), while the prune removes the run.
        const racer = spawn(
          '/usr/bin/python3',
          [
            '-c',
            `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
d, link = sys.argv[1] + "/out/d", sys.argv[1] + "/out/l"
os.symlink(sys.argv[2], link)
print("racing", flush=True)
n = loops = 0
while True:
    if libc.renameat2(-100, d.encode(), -100, link.encode(), 2) == 0:
        n += 1
    loops += 1
    if loops % 100 == 0:
        print("swaps", n, flush=True)`,
            run,
            victim,
          ],
          {stdio: ['ignore', 'pipe', 'inherit']},
        )
        let out = ''
        racer.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk
        })
        const count = (): number => Number([...out.matchAll(/swaps (\d+)/g)].at(-1)?.[1] ?? 0)
        await vi.waitFor(() => expect(count() > 0).toBe(true), {timeout: 10_000})
        await pruneArtifacts(root)
        racer.kill('SIGKILL')
        await new Promise((resolve) => {
          racer.once('close', resolve)
        })
        swaps += count()
        rmSync(run, {recursive: true, force: true})
      }
      expect(swaps).toBeGreaterThan(0)
      expect(readdirSync(victim)).toHaveLength(21)
    } finally {
      rmSync(root, {recursive: true, force: true})
      rmSync(victim, {recursive: true, force: true})
    }
  })
})

describe('through serve, to a real v2 client', () => {
  let setup: ServeSetup
  let client: Client

  beforeAll(async () => {
    // The sandbox tier follows PTC_MCP_BWRAP, as for every serve suite (.ci/sandbox-tiers.sh).
    setup = prepareServe({servers: [], execution: {timeout_seconds: 30, warm_pool: 0}})
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: setup.args,
      env: setup.env,
      stderr: 'pipe',
    })
    client = new Client({name: 'kept-files-v2', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
    await client.connect(transport)
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    setup?.cleanup()
  })

  test('lists the kept files in the text and returns each as a resource_link after it', async () => {
    const code = [
      'import os',
      'os.makedirs("out/charts")',
      'open("out/report.csv", "w").write("a,b\\n1,2\\n")',
      'open("out/charts/q1.txt", "w").write("q1")',
      'os.symlink("/etc/passwd", "out/evil")',
    ].join('\n')
    const result = (await client.callTool({name: 'execute_program', arguments: {code}})) as {
      content: Array<{type: string; text?: string; uri?: string; name?: string; size?: number}>
      isError?: boolean
    }
    expect(result.isError, JSON.stringify(result)).toBeFalsy()
    const [first, ...links] = result.content
    expect(first?.type).toBe('text')
    expect(first?.text).toMatch(
      /\n--- files kept in .+ ---\ncharts\/q1\.txt \(2 bytes\)\nreport\.csv \(8 bytes\)\n/,
    )
    expect(first?.text).toContain('not kept: out/evil (a link: links are not followed)')
    expect(links.map(({type, name, size}) => ({type, name, size}))).toEqual([
      {type: 'resource_link', name: 'charts/q1.txt', size: 2},
      {type: 'resource_link', name: 'report.csv', size: 8},
    ])
    expect(readFileSync(fileURLToPath(links[1]!.uri!), 'utf8')).toBe('a,b\n1,2\n')
  })
})

function lstatExists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}
