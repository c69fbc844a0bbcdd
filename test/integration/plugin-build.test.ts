// @tier integration
/**
 * The Claude Code plugin's committed build (plugin/package.json, plugin/server/: serve bundled in
 * one file, and its Python files) is what scripts/bundle-plugin.js writes from the sources now: a
 * fresh clone runs the sources it carries. When this fails, run `npm run build:plugin` and commit.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'

import {spawnCollect} from '../helpers/processes.js'

const ROOT = join(import.meta.dirname, '..', '..')
const COMMITTED = join(ROOT, 'plugin')
const rebuilt = mkdtempSync(join(tmpdir(), 'ptc-plugin-build-'))

afterAll(() => rmSync(rebuilt, {recursive: true, force: true}))

/** The files the build writes, relative to its folder, sorted. */
const built = (dir: string): string[] => [
  'package.json',
  ...readdirSync(join(dir, 'server'), {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.pyc'))
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort(),
]

it('the committed plugin build is the one the sources give (else: npm run build:plugin)', async () => {
  const script = join(ROOT, 'scripts', 'bundle-plugin.js')
  const result = await spawnCollect(process.execPath, [script, rebuilt], {timeoutMs: 60_000}).done
  expect(result.code, result.stderr).toBe(0)
  expect(built(COMMITTED)).toEqual(built(rebuilt))
  const stale = built(rebuilt).filter(
    (file) => !readFileSync(join(rebuilt, file)).equals(readFileSync(join(COMMITTED, file))),
  )
  expect(
    stale,
    'files of plugin/ that differ from a fresh build: run `npm run build:plugin` and commit',
  ).toEqual([])
})
