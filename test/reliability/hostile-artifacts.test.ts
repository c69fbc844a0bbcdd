/**
 * Another local user against the artifacts root (SPEC §14, §15): a user who can rename inside the
 * parent of `execution.artifacts_dir` swaps root's artifacts directory with a link to a root-only
 * directory (renameat2 RENAME_EXCHANGE) in a loop while 200 programs keep ./out/ files. Before,
 * the root was checked and then used by path, and 25 of 257 runs landed files in the root-only
 * directory; now each run's files are written through descriptors, and none land outside.
 * As root only (the other user is a uid of its own, as in hostile-host.test.ts).
 */
import {spawn} from 'node:child_process'
import {chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import type {ProgramEngine} from '../../src/execution/engine/engine.js'

import {closeTestEngines, createTestEngine} from '../helpers/engine.js'
import {noTools} from '../sandbox/harness.js'

const isRoot = process.geteuid?.() === 0
const OTHER = 54_324
const RUNS = 200
const MKDIR = 'import os\nos.makedirs("out", exist_ok=True)\n'

/** Every regular file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...filesUnder(path, `${prefix}${entry.name}/`))
    else found.push(`${prefix}${entry.name}`)
  }
  return found
}

const SWAPPER = String.raw`
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
print("racing", flush=True)
n = loops = 0
while True:
    if libc.renameat2(-100, a, -100, b, 2) == 0:
        n += 1
    loops += 1
    if loops % 1000 == 0:
        print("swaps", n, flush=True)
`

describe.runIf(process.platform === 'linux' && isRoot)(
  'a local user swapping the artifacts root (SPEC §15)',
  () => {
    let base: string
    let engine: ProgramEngine

    beforeAll(async () => {
      // In /tmp itself: the other user must reach the parent it renames in.
      base = mkdtempSync('/tmp/ptc-hostile-artifacts-')
      chmodSync(base, 0o755)
      mkdirSync(join(base, 'shared'), {mode: 0o777})
      chmodSync(join(base, 'shared'), 0o777)
      mkdirSync(join(base, 'victim'), {mode: 0o700})
      writeFileSync(join(base, 'victim', 'precious'), 'x')
      engine = await createTestEngine(noTools, {
        artifacts_dir: join(base, 'shared', 'artifacts'),
        warm_pool: 1,
      })
    })

    afterAll(async () => {
      await closeTestEngines()
      if (base) rmSync(base, {recursive: true, force: true})
    })

    it(`${RUNS} runs keeping ./out/ files while the root is swapped for a link: 0 files outside it`, async () => {
      const root = join(base, 'shared', 'artifacts')
      const decoy = join(base, 'shared', 'decoy')
      // The root exists (root's, private) before the other user starts: as after earlier runs.
      const first = await engine.run(`${MKDIR}open("out/first.txt", "w").write("x")`)
      expect(first.text).toContain('files kept in')
      const racer = spawn(
        'setpriv',
        [
          '--reuid',
          String(OTHER),
          '--regid',
          String(OTHER),
          '--clear-groups',
          '/bin/sh',
          '-c',
          `ln -s "$3" "$2" && exec /usr/bin/python3 -c "$1" "$4" "$2"`,
          'sh',
          SWAPPER,
          decoy,
          join(base, 'victim'),
          root,
        ],
        {stdio: ['ignore', 'pipe', 'inherit']},
      )
      let out = ''
      racer.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
      })
      try {
        await vi.waitFor(() => expect(out).toContain('racing'), {timeout: 10_000})
        let ran = 0
        for (let n = 0; n < RUNS; n++) {
          const outcome = await engine.run(`${MKDIR}open("out/run-${n}.txt", "w").write("x" * 100)`)
          if (outcome.ok && outcome.text.includes('files kept in')) ran++
        }
        const swaps = Number([...out.matchAll(/swaps (\d+)/g)].at(-1)?.[1] ?? 0)
        console.log(`artifacts race: ${RUNS} runs (${ran} kept their file), ${swaps} swaps`)
        expect(swaps).toBeGreaterThan(100)
      } finally {
        racer.kill('SIGKILL')
        await new Promise((resolve) => {
          racer.once('close', resolve)
        })
      }
      expect(filesUnder(join(base, 'victim'))).toEqual(['precious'])
      // Where the real root ended up (the last swap decides which name it has), the runs' files are.
      const real = lstatSync(root).isDirectory() ? root : decoy
      const kept = filesUnder(real).filter((path) => /\/out\/run-\d+\.txt$/.test(path)).length
      console.log(`artifacts race: ${kept} run files in the real artifacts directory, 0 outside`)
      expect(kept).toBeGreaterThan(0)
    }, 300_000)
  },
)
