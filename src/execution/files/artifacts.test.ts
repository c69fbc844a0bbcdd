import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ARTIFACT_MAX_AGE_MS} from '../../shared/limits.js'
import {OutputCapture} from '../outcome/output-capture.js'
import {artifactsRoot, pruneArtifacts, RunArtifacts} from './artifacts.js'

let root: string

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ptc-artifacts-'))
})
afterEach(() => {
  rmSync(root, {force: true, recursive: true})
})

function runDir(name: string, bytes: number, ageMs: number): string {
  const dir = join(root, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'output.txt'), Buffer.alloc(bytes, 97))
  const when = (Date.now() - ageMs) / 1000
  utimesSync(dir, when, when)
  return dir
}

describe('artifactsRoot', () => {
  it('is the configured dir, else $XDG_STATE_HOME/ptc-mcp/artifacts, else ~/.local/state', () => {
    expect(artifactsRoot('/srv/a', {})).toBe('/srv/a')
    expect(artifactsRoot(undefined, {XDG_STATE_HOME: '/x'})).toBe('/x/ptc-mcp/artifacts')
    expect(artifactsRoot(undefined, {})).toMatch(/\.local\/state\/ptc-mcp\/artifacts$/)
  })
})

describe('pruneArtifacts', () => {
  it('removes runs older than 7 days and keeps newer ones', async () => {
    const old = runDir('old', 10, ARTIFACT_MAX_AGE_MS + 60_000)
    const recent = runDir('recent', 10, ARTIFACT_MAX_AGE_MS - 60_000)
    expect(await pruneArtifacts(root)).toEqual([old])
    expect(existsSync(recent)).toBe(true)
  })

  it('removes the oldest runs until the rest fit the total, never following a planted link', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'ptc-artifacts-outside-'))
    try {
      writeFileSync(join(outside, 'precious'), 'keep me')
      const a = runDir('a', 600, 3000)
      const b = runDir('b', 600, 2000)
      const c = runDir('c', 600, 1000)
      symlinkSync(outside, join(root, 'link'))
      symlinkSync(outside, join(a, 'inner-link'))
      const aTime = (Date.now() - 3000) / 1000
      utimesSync(a, aTime, aTime)
      const removed = await pruneArtifacts(root, {maxTotalBytes: 1300})
      expect(removed.sort()).toEqual([a, join(root, 'link')].sort())
      expect(readdirSync(root).sort()).toEqual(['b', 'c'])
      expect(existsSync(b) && existsSync(c)).toBe(true)
      expect(readdirSync(outside)).toEqual(['precious'])
    } finally {
      rmSync(outside, {force: true, recursive: true})
    }
  })

  it('is nothing to do for a root that does not exist', async () => {
    expect(await pruneArtifacts(join(root, 'missing'))).toEqual([])
  })

  it("measures and removes off serve's event loop, one prune at a time per root", async () => {
    const old = runDir('old', 10, ARTIFACT_MAX_AGE_MS + 60_000)
    const first = pruneArtifacts(root)
    // Nothing was read or removed before the caller got its promise back.
    expect(existsSync(old)).toBe(true)
    // Asked again meanwhile: once more after it, never two at once.
    const again = pruneArtifacts(root)
    expect(pruneArtifacts(root)).toBe(again)
    expect(await first).toEqual([old])
    expect(existsSync(old)).toBe(false)
    expect(await again).toEqual([])
  })
})

function victimDir(): string {
  const victim = mkdtempSync(join(tmpdir(), 'ptc-artifacts-victim-'))
  for (let n = 0; n < 5; n++) writeFileSync(join(victim, `precious-${n}`), 'x')
  mkdirSync(join(victim, 'old-dir'))
  const when = (Date.now() - 2 * ARTIFACT_MAX_AGE_MS) / 1000
  utimesSync(join(victim, 'old-dir'), when, when)
  return victim
}

describe('the artifacts root is held to the scratch root rule', () => {
  it('a link at the configured path is neither pruned through nor written into, and says the fix', async () => {
    const victim = victimDir()
    try {
      const link = join(root, 'artifacts')
      symlinkSync(victim, link)
      expect(await pruneArtifacts(link)).toEqual([])
      expect(readdirSync(victim).sort()).toEqual([
        'old-dir',
        ...Array.from({length: 5}, (_, n) => `precious-${n}`),
      ])
      expect(() => new RunArtifacts(link).dir()).toThrow(
        /artifacts directory cannot be used: .*artifacts is a link or not a directory.*Fix: remove .*execution\.artifacts_dir/,
      )
      expect(readdirSync(victim)).toHaveLength(6)
    } finally {
      rmSync(victim, {force: true, recursive: true})
    }
  })

  it('a root open to other users is refused the same way', async () => {
    const open = join(root, 'open')
    mkdirSync(open)
    chmodSync(open, 0o777)
    runDirIn(open, 'old', ARTIFACT_MAX_AGE_MS + 60_000)
    expect(await pruneArtifacts(open)).toEqual([])
    expect(readdirSync(open)).toEqual(['old'])
    expect(() => new RunArtifacts(open).dir()).toThrow(/can be written by other users \(mode 777\)/)
  })

  it('a missing root is created private, with its parents', () => {
    const nested = join(root, 'a', 'b', 'artifacts')
    const artifacts = new RunArtifacts(nested)
    artifacts.dir()
    expect(lstatSync(nested).mode % 0o1000).toBe(0o700)
    expect(existsSync(artifacts.path!)).toBe(true)
    artifacts.close()
  })
})

function runDirIn(parent: string, name: string, ageMs: number): string {
  const dir = join(parent, name)
  mkdirSync(dir)
  const when = (Date.now() - ageMs) / 1000
  utimesSync(dir, when, when)
  return dir
}

describe('output over the cap, kept whole', () => {
  it('returns head and tail with the file and exact byte counts; the file is the whole output', () => {
    const artifacts = new RunArtifacts(root)
    const capture = new OutputCapture(1000, {runDir: () => artifacts.dir(), maxBytes: 1024 * 1024})
    const lines = Array.from({length: 20_000}, (_, i) => `line ${i}\n`)
    const whole = Buffer.from(lines.join(''))
    for (let i = 0; i < whole.length; i += 4096) capture.write(whole.subarray(i, i + 4096))
    const [firstLine, text] = splitFirstLine(capture.text())
    const path = join(artifacts.path!, 'output.txt')
    const match = /\n\.\.\. \[(\d+) bytes omitted: the whole output is in (.+)\]\n/.exec(text)
    // The same note opens the output, so a client previewing only its start shows it (SPEC §8).
    expect(firstLine).toBe(match![0].trim())
    expect(match?.[2]).toBe(path)
    const [head, tail] = text.split(match![0])
    expect(Buffer.byteLength(head!) + 1 + Number(match![1]) + Buffer.byteLength(tail!)).toBe(whole.length)
    expect(whole.toString().startsWith(`${head}\n`)).toBe(true)
    expect(whole.toString().endsWith(tail!)).toBe(true)
    expect(lstatSync(path).size).toBe(whole.length)
    expect(lstatSync(path).mode.toString(8).slice(-3)).toBe('600')
  })

  it('keeps at most maxBytes in the file and says so', () => {
    const artifacts = new RunArtifacts(root)
    const capture = new OutputCapture(100, {runDir: () => artifacts.dir(), maxBytes: 5000})
    for (let i = 0; i < 10; i++) capture.write(Buffer.alloc(1000, 98))
    expect(capture.text()).toContain(
      `the whole output is in ${join(artifacts.path!, 'output.txt')} (its first 5000 bytes)]`,
    )
    expect(lstatSync(join(artifacts.path!, 'output.txt')).size).toBe(5000)
  })

  it('makes no run directory for output within the cap', () => {
    const capture = new OutputCapture(100, {runDir: () => new RunArtifacts(root).dir(), maxBytes: 5000})
    capture.write(Buffer.alloc(100, 98))
    expect(capture.text()).toHaveLength(100)
    expect(readdirSync(root)).toEqual([])
  })
})

/** The cut output's first line (the note, SPEC §8) and the rest. */
function splitFirstLine(text: string): [string, string] {
  const end = text.indexOf('\n')
  return [text.slice(0, end), text.slice(end + 1)]
}
