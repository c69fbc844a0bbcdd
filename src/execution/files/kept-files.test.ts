// @tier unit
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ProtocolError} from '../protocol/protocol.js'
import {RunArtifacts} from './artifacts.js'
import {
  keptFilesLines,
  KeptFilesWriter,
  keptNameProblem,
  MAX_KEPT_BYTES,
  MAX_KEPT_FILES,
} from './kept-files.js'

let root: string
let runDir: string
let made: number

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ptc-kept-test-'))
  runDir = join(root, 'run')
  made = 0
})

afterEach(() => {
  rmSync(root, {force: true, recursive: true})
})

function writer(limits?: {files: number; bytes: number}): KeptFilesWriter {
  return new KeptFilesWriter(() => {
    if (!existsSync(runDir)) {
      made++
      mkdirSync(runDir, {mode: 0o700})
    }
    return runDir
  }, limits)
}

describe('keptNameProblem', () => {
  it('accepts relative names of sane length and depth', () => {
    for (const name of ['report.csv', 'charts/a.png', 'a/b/c/d/e/f/g/h/x', 'é.txt', '.hidden', '...'])
      expect(keptNameProblem(name), name).toBeUndefined()
  })

  it('refuses names that could leave out/ or break the listing', () => {
    for (const [name, problem] of [
      ['', 'an empty name'],
      ['/etc/passwd', 'a name with a "" component'],
      ['../x', 'a name with a ".." component'],
      ['a/../../x', 'a name with a ".." component'],
      ['a//b', 'a name with a "" component'],
      ['./a', 'a name with a "." component'],
      ['a/', 'a name with a "" component'],
      ['a\u0000b', 'a name with control or bidirectional characters'],
      ['a\nb', 'a name with control or bidirectional characters'],
      ['a\u2028b', 'a name with control or bidirectional characters'],
      ['bidi\u202Etxt.exe', 'a name with control or bidirectional characters'],
      ['x\u202Ay', 'a name with control or bidirectional characters'],
      ['x\u2066y\u2069', 'a name with control or bidirectional characters'],
      ['\uD800', 'a name that is not valid Unicode'],
      ['x'.repeat(256), 'a name component over 255 bytes'],
      [Array.from({length: 9}, () => 'd').join('/') + '/f', 'a name deeper than 8 directories'],
      [Array.from({length: 5}, () => 'y'.repeat(250)).join('/'), 'a name over 1024 bytes'],
    ])
      expect(keptNameProblem(name!), JSON.stringify(name)).toBe(problem)
  })
})

describe('KeptFilesWriter', () => {
  it('keeps files and subdirectories under <run-dir>/out, private, made once and only when needed', () => {
    const kept = writer()
    kept.begin('report.csv')
    kept.append(Buffer.from('a,b\n'))
    kept.append(Buffer.from('1,2\n'))
    kept.begin('charts/q1/a.bin')
    kept.append(Buffer.from([0, 1, 2]))
    kept.begin('empty')
    const result = kept.finish(true)
    expect(made).toBe(1)
    expect(result).toEqual({
      dir: join(runDir, 'out'),
      files: [
        {name: 'report.csv', path: join(runDir, 'out', 'report.csv'), bytes: 8},
        {name: 'charts/q1/a.bin', path: join(runDir, 'out', 'charts', 'q1', 'a.bin'), bytes: 3},
        {name: 'empty', path: join(runDir, 'out', 'empty'), bytes: 0},
      ],
      notKept: [],
      moreNotKept: 0,
    })
    expect(readFileSync(join(runDir, 'out', 'report.csv'), 'utf8')).toBe('a,b\n1,2\n')
    expect(
      lstatSync(join(runDir, 'out', 'report.csv'))
        .mode.toString(8)
        .slice(-3),
    ).toBe('600')
    expect(
      lstatSync(join(runDir, 'out', 'charts'))
        .mode.toString(8)
        .slice(-3),
    ).toBe('700')
    expect(keptFilesLines(result)).toEqual([
      `--- files kept in ${join(runDir, 'out')} ---`,
      'report.csv (8 bytes)',
      'charts/q1/a.bin (3 bytes)',
      'empty (0 bytes)',
    ])
  })

  it('makes no directory when nothing is kept, and lists nothing', () => {
    const result = writer().finish(true)
    expect(made).toBe(0)
    expect(result).toEqual({files: [], notKept: [], moreNotKept: 0})
    expect(keptFilesLines(result)).toEqual([])
  })

  it('keeps 64 files: the 65th and any after it are refused and named once', () => {
    const kept = writer()
    for (let i = 0; i <= MAX_KEPT_FILES + 5; i++) {
      kept.begin(`f${i}.txt`)
      kept.append(Buffer.from(String(i)))
    }
    const result = kept.finish(true)
    expect(result.files).toHaveLength(MAX_KEPT_FILES)
    expect(readdirSync(join(runDir, 'out'))).toHaveLength(MAX_KEPT_FILES)
    expect(result.notKept).toEqual([{name: 'f64.txt', reason: 'files'}])
    expect(keptFilesLines(result).at(-1)).toBe(
      'not kept: out/f64.txt (and any after it: at most 64 files per run)',
    )
  })

  it('stops at the byte limit: the file that goes over is removed whole, smaller ones after it still fit', () => {
    const kept = writer({files: 64, bytes: 100})
    kept.begin('a')
    kept.append(Buffer.alloc(60))
    kept.begin('b')
    kept.append(Buffer.alloc(30))
    kept.append(Buffer.alloc(30)) // 120 > 100
    kept.append(Buffer.alloc(5)) // dropped with the rest of b
    kept.begin('c')
    kept.append(Buffer.alloc(40))
    const result = kept.finish(true)
    expect(result.files.map((file) => [file.name, file.bytes])).toEqual([
      ['a', 60],
      ['c', 40],
    ])
    expect(readdirSync(join(runDir, 'out')).sort()).toEqual(['a', 'c'])
    expect(result.notKept).toEqual([{name: 'b', reason: 'bytes'}])
  })

  it(`holds at most ${MAX_KEPT_BYTES / 1024 ** 2} MiB by default`, () => {
    const kept = writer()
    const chunk = Buffer.alloc(1024 * 1024, 1)
    for (let i = 0; i < 65; i++) {
      if (i % 13 === 0) kept.begin(`part${i / 13}`)
      kept.append(chunk)
    }
    const result = kept.finish(true)
    const total = result.files.reduce((sum, file) => sum + file.bytes, 0)
    expect(total).toBe(52 * 1024 * 1024)
    expect(result.notKept).toEqual([{name: 'part4', reason: 'bytes'}])
    expect(keptFilesLines(result).at(-1)).toBe('not kept: out/part4 (over 64 MiB in total per run)')
  })

  it('refuses bad names, drops their data, and never writes outside out/', () => {
    const kept = writer()
    for (const name of ['../escape', '/tmp/abs', 'a\nb']) {
      kept.begin(name)
      kept.append(Buffer.from('x'))
    }
    kept.begin('ok')
    kept.append(Buffer.from('y'))
    const result = kept.finish(true)
    expect(result.files.map((file) => file.name)).toEqual(['ok'])
    expect(readdirSync(root)).toEqual(['run'])
    expect(readdirSync(runDir)).toEqual(['out'])
    expect(result.notKept).toEqual([
      {name: '../escape', reason: 'name'},
      {name: '/tmp/abs', reason: 'name'},
      {name: '(unprintable name)', reason: 'name'},
    ])
  })

  it('never writes through a link or over a file already there (the same name twice, a file then a directory)', () => {
    const kept = writer()
    kept.begin('x')
    kept.append(Buffer.from('first'))
    // Planted as if by someone else, between two files.
    const target = join(root, 'target')
    writeFileSync(target, 'untouched')
    symlinkSync(target, join(runDir, 'out', 'link'))
    symlinkSync(root, join(runDir, 'out', 'dirlink'))
    for (const name of ['x', 'link', 'x/y', 'dirlink/z']) {
      kept.begin(name)
      kept.append(Buffer.from('second'))
    }
    const result = kept.finish(true)
    expect(result.files.map((file) => file.name)).toEqual(['x'])
    expect(readFileSync(join(runDir, 'out', 'x'), 'utf8')).toBe('first')
    expect(readFileSync(target, 'utf8')).toBe('untouched')
    expect(readdirSync(root).sort()).toEqual(['run', 'target'])
    expect(result.notKept.map((entry) => entry.reason)).toEqual(['error', 'error', 'error', 'error'])
  })

  it('names at most 5 entries not kept and counts the rest', () => {
    const kept = writer()
    for (let i = 0; i < 8; i++) kept.skipped(`link${i}`, 'link')
    kept.skipped('deep', 'depth')
    const result = kept.finish(true)
    expect(result.notKept).toHaveLength(5)
    expect(result.moreNotKept).toBe(4)
    expect(keptFilesLines(result)).toEqual([
      '--- files kept: none ---',
      `not kept: ${[0, 1, 2, 3, 4].map((i) => `out/link${i} (a link: links are not followed)`).join('; ')}; 4 more`,
    ])
  })

  it('removes a file still being received when the transfer did not complete', () => {
    const kept = writer()
    kept.begin('a')
    kept.append(Buffer.from('whole'))
    kept.begin('b')
    kept.append(Buffer.from('half'))
    const result = kept.finish(false)
    expect(result.files.map((file) => file.name)).toEqual(['a'])
    expect(readdirSync(join(runDir, 'out'))).toEqual(['a'])
    // Nothing arriving after the end is written.
    kept.begin('c')
    kept.append(Buffer.from('late'))
    expect(readdirSync(join(runDir, 'out'))).toEqual(['a'])
  })

  it('removes an incomplete file from its own run directory after the descriptor was let go and its number reused', () => {
    // The child exited (its run directory's descriptor closed) while its output still drained;
    // another run's directory then took the same descriptor number.
    const other = new RunArtifacts(join(root, 'artifacts'))
    other.dir()
    other.close()
    const artifacts = new RunArtifacts(join(root, 'artifacts'))
    const kept = new KeptFilesWriter(() => artifacts.dir())
    kept.begin('report.csv')
    kept.append(Buffer.from('half'))
    const held = artifacts.dir()
    artifacts.close()
    // Opened again: the lowest free descriptor, the one just let go.
    expect(other.dir()).toBe(held)
    const otherFile = new KeptFilesWriter(() => other.dir())
    otherFile.begin('report.csv')
    otherFile.append(Buffer.from('theirs'))
    expect(kept.finish(false).files).toEqual([])
    expect(readdirSync(join(artifacts.path!, 'out'))).toEqual([])
    expect(otherFile.finish(true).files.map((file) => file.name)).toEqual(['report.csv'])
    expect(readFileSync(join(other.path!, 'out', 'report.csv'), 'utf8')).toBe('theirs')
    artifacts.close()
    other.close()
  })

  it('treats data before any file as a broken protocol', () => {
    expect(() => writer().append(Buffer.from('x'))).toThrow(ProtocolError)
  })
})
