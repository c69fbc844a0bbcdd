// @tier integration
/* eslint-disable no-bitwise -- file modes are bit patterns */
import {execFileSync} from 'node:child_process'
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
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {CacheUse} from '../../src/cli/serve-bundle.js'

import {PACKAGE_ROOT} from '../../src/shared/package-root.js'

// serve's start (SPEC §5) loads its bundle with a V8 code cache (src/cli/serve-bundle.ts). V8 also
// keeps compiled scripts in memory, so each load runs in a Node process of its own, as serve does.

let root: string
let cacheDir: string

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'serve-bundle-'))
  cacheDir = join(root, 'cache', 'ptc-mcp', 'code-cache')
})
afterEach(() => {
  rmSync(root, {recursive: true, force: true})
})

/** A CommonJS bundle whose export tells which source ran (`tag`), padded to `length` bytes. */
function bundle(tag: string, length = 4000): string {
  const file = join(root, `bundle-${tag}.cjs`)
  const body = `exports.tag = ${JSON.stringify(tag)}; exports.sum = (a, b) => a + b; exports.dir = __dirname;\n`
  writeFileSync(file, body + '/'.repeat(2) + 'x'.repeat(length - body.length - 3) + '\n')
  return file
}

const LOADER = join(PACKAGE_ROOT, 'dist', 'cli', 'serve-bundle.js')

/**
 * Loads `file` in a fresh Node process, with the cache in `dir` ('': none): how the cache served,
 * and what the bundle exported.
 */
function loadBundle(
  file: string,
  dir: string,
): {cache: CacheUse; exports: {tag: string; sum: number; dir: string}} {
  const script = `const {loadBundle} = await import(process.argv[1])
const {cache, exports} = loadBundle(process.argv[2], process.argv[3] || undefined)
process.stdout.write(JSON.stringify({cache, exports: {tag: exports.tag, sum: exports.sum(2, 3), dir: exports.dir}}))`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, LOADER, file, dir], {
    encoding: 'utf8',
    timeout: 20_000,
  })
  return JSON.parse(out) as {cache: CacheUse; exports: {tag: string; sum: number; dir: string}}
}

const cacheFiles = (): string[] => readdirSync(cacheDir).filter((name) => name.startsWith('serve-'))

describe("serve's bundle with a code cache", () => {
  it('writes the cache on the first load (private) and uses it on the next', () => {
    const file = bundle('a')
    const first = loadBundle(file, cacheDir)
    expect(first.cache).toBe('written')
    expect(first.exports.tag).toBe('a')
    expect(first.exports.sum).toBe(5)
    expect(first.exports.dir).toBe(root)
    const [name] = cacheFiles()
    expect(name).toMatch(new RegExp(`^serve-[0-9a-f]{32}-${process.version}-${process.arch}\\.bin$`))
    expect(lstatSync(join(cacheDir, name!)).mode & 0o777).toBe(0o600)
    expect(lstatSync(cacheDir).mode & 0o777).toBe(0o700)

    const second = loadBundle(file, cacheDir)
    expect(second.cache).toBe('used')
    expect(second.exports.tag).toBe('a')
  })

  it('never gives one bundle the cache of another of the same length', () => {
    const a = bundle('a')
    const b = bundle('b')
    expect(readFileSync(a).length).toBe(readFileSync(b).length)
    expect(loadBundle(a, cacheDir).cache).toBe('written')
    const other = loadBundle(b, cacheDir)
    expect(other.cache).toBe('written')
    expect(other.exports.tag).toBe('b')
    expect(cacheFiles()).toHaveLength(2)
  })

  it('replaces a corrupt cache and still runs the bundle', () => {
    const file = bundle('a')
    loadBundle(file, cacheDir)
    const [name] = cacheFiles()
    writeFileSync(join(cacheDir, name!), Buffer.alloc(2048, 7))
    const loaded = loadBundle(file, cacheDir)
    expect(loaded.cache).toBe('rejected-and-rewritten')
    expect(loaded.exports.tag).toBe('a')
    expect(loadBundle(file, cacheDir).cache).toBe('used')
  })

  it('does not follow a link planted as the cache file', () => {
    const file = bundle('a')
    loadBundle(file, cacheDir)
    const [name] = cacheFiles()
    const victim = join(root, 'victim')
    writeFileSync(victim, 'keep me')
    rmSync(join(cacheDir, name!))
    symlinkSync(victim, join(cacheDir, name!))
    const loaded = loadBundle(file, cacheDir)
    expect(loaded.cache).toBe('written')
    expect(loaded.exports.tag).toBe('a')
    expect(readFileSync(victim, 'utf8')).toBe('keep me')
    expect(lstatSync(join(cacheDir, name!)).isFile()).toBe(true)
  })

  it('uses no cache in a directory other users can write to, or one that cannot be made', () => {
    const file = bundle('a')
    mkdirSync(cacheDir, {recursive: true})
    chmodSync(cacheDir, 0o777)
    const open = loadBundle(file, cacheDir)
    expect(open.cache).toBe('unavailable')
    expect(open.exports.tag).toBe('a')
    expect(cacheFiles()).toHaveLength(0)
    // Ours and written by no one else, only readable by others: closed to them, then used.
    chmodSync(cacheDir, 0o755)
    expect(loadBundle(file, cacheDir).cache).toBe('written')
    expect(statSync(cacheDir).mode % 0o1000).toBe(0o700)
    // Node's recursive mkdir never returns under /proc: the levels are made one by one.
    const proc = loadBundle(file, '/proc/no-such-dir/ptc-mcp/code-cache')
    expect(proc.cache).toBe('unavailable')
    expect(loadBundle(file, '').cache).toBe('unavailable')
  })

  it('keeps the caches of at most three other builds, the newest', () => {
    mkdirSync(cacheDir, {recursive: true, mode: 0o700})
    const others = ['1', '2', '3', '4', '5'].map((n) => `serve-${n.repeat(32)}-v0.0.0-x64.bin`)
    for (const [age, name] of others.entries()) {
      writeFileSync(join(cacheDir, name), 'old')
      const seconds = Date.now() / 1000 - (age + 1) * 3600
      utimesSync(join(cacheDir, name), seconds, seconds)
    }
    writeFileSync(join(cacheDir, 'not-ours'), 'left alone')
    expect(loadBundle(bundle('a'), cacheDir).cache).toBe('written')
    const left = cacheFiles()
    expect(left).toHaveLength(4)
    expect(left).toEqual(expect.arrayContaining(others.slice(0, 3)))
    expect(existsSync(join(cacheDir, 'not-ours'))).toBe(true)
  })
})
