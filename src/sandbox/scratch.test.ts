// @tier sandbox
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {silentLogger} from '../shared/log.js'
import {
  createProbeDir,
  createScratchDir,
  ensureScratchRoot,
  removeScratchDir,
  scratchRoot,
  sweepOrphanedScratchDirs,
} from './scratch.js'

const dirs: string[] = []
const isRoot = process.geteuid?.() === 0

afterEach(async () => {
  for (const dir of dirs.splice(0)) {
    await chmod(dir, 0o700).catch(() => {})
    await rm(dir, {recursive: true, force: true})
  }
})

async function tempBase(): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'ptc-scratch-test-'))
  dirs.push(base)
  return base
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], {stdio: 'ignore'})
  await new Promise((resolve) => {
    child.once('exit', resolve)
  })
  return child.pid!
}

/** A directory outside the scratch root with a file that must survive. */
async function victim(base: string): Promise<{dir: string; file: string}> {
  const dir = join(base, 'victim')
  await mkdir(dir)
  const file = join(dir, 'keep.txt')
  await writeFile(file, 'precious')
  return {dir, file}
}

describe('the private scratch root', () => {
  it('is created 0700 and holds each run in its own directory', async () => {
    const base = await tempBase()
    const dir = await createScratchDir(base)
    const root = scratchRoot(base)
    expect(dir.startsWith(join(root, `ptc-run-${process.pid}-`))).toBe(true)
    expect(((await lstat(root)).mode % 0o1000).toString(8)).toBe('700')
    await removeScratchDir(dir)
    expect(await readdir(root)).toEqual([])
  })

  it('is left alone when it is a link, open to others, or not a directory: a fresh private root is used', async () => {
    const base = await tempBase()
    const root = scratchRoot(base)
    const elsewhere = join(base, 'elsewhere')
    await mkdir(elsewhere, {mode: 0o700})
    await symlink(elsewhere, root)
    const fresh = await ensureScratchRoot(base)
    expect(fresh).toMatch(new RegExp(`^${root}-${process.pid}-\\w{6}$`))
    expect(((await lstat(fresh)).mode % 0o1000).toString(8)).toBe('700')
    const dir = await createScratchDir(base)
    expect(dir.startsWith(`${fresh}/ptc-run-`)).toBe(true)
    await removeScratchDir(dir)
    expect(await readdir(elsewhere)).toEqual([])
    expect((await lstat(root)).isSymbolicLink()).toBe(true)
  })

  it.runIf(isRoot)(
    "another user's squatted root does not stop programs: a fresh private root, their files untouched",
    async () => {
      const base = await tempBase()
      await chmod(base, 0o1777)
      const root = scratchRoot(base)
      await mkdir(root, {mode: 0o700})
      await writeFile(join(root, 'theirs'), 'x')
      await chown(join(root, 'theirs'), 12_345, 12_345)
      await chown(root, 12_345, 12_345)
      const dir = await createScratchDir(base)
      expect(dir.startsWith(`${root}-${process.pid}-`)).toBe(true)
      await removeScratchDir(dir)
      await sweepOrphanedScratchDirs(silentLogger, base)
      expect(await readdir(root)).toEqual(['theirs'])
    },
  )

  it('the sweep removes the fresh private root of a server that is gone, not a live one', async () => {
    const base = await tempBase()
    const uid = process.geteuid?.() ?? 0
    const gone = join(base, `ptc-mcp-${uid}-999999999-abcdef`)
    const live = join(base, `ptc-mcp-${uid}-${process.pid}-abcdef`)
    await mkdir(join(gone, 'ptc-run-999999999-x'), {recursive: true, mode: 0o700})
    await mkdir(live, {mode: 0o700})
    await sweepOrphanedScratchDirs(silentLogger, base)
    expect((await readdir(base)).filter((name) => name.startsWith(`ptc-mcp-${uid}-`))).toEqual([
      basename(live),
    ])
  })
})

describe('removal and the sweep of leftovers', () => {
  it("removes the dirs of servers that are gone, without following links, keeping live servers'", async () => {
    const base = await tempBase()
    const {dir: outside, file} = await victim(base)
    const root = await ensureScratchRoot(base)
    const orphan = join(root, `ptc-run-${await deadPid()}-AbC123`)
    await mkdir(join(orphan, 'sub'), {recursive: true})
    await writeFile(join(orphan, 'sub', 'data.txt'), 'left behind')
    await symlink(outside, join(orphan, 'link-to-dir'))
    await symlink(file, join(orphan, 'sub', 'link-to-file'))
    const mine = join(root, `ptc-run-${process.pid}-XyZ789`)
    const unnamed = join(root, 'ptc-run-AbCdEf')
    await mkdir(mine)
    await mkdir(unnamed)

    await sweepOrphanedScratchDirs(silentLogger, base)

    expect(existsSync(orphan)).toBe(false)
    expect(existsSync(mine)).toBe(true)
    expect(existsSync(unnamed)).toBe(true)
    expect(await readFile(file, 'utf8')).toBe('precious')
  })

  it.runIf(isRoot)("leaves a directory in the root that is not this user's", async () => {
    const base = await tempBase()
    const root = await ensureScratchRoot(base)
    const foreign = join(root, `ptc-run-${await deadPid()}-foreign`)
    await mkdir(foreign)
    await chown(foreign, 12_345, 12_345)
    await sweepOrphanedScratchDirs(silentLogger, base)
    expect(existsSync(foreign)).toBe(true)
  })

  it('never looks outside the private root: a dead-pid ptc-run dir planted in the base stays', async () => {
    const base = await tempBase()
    const {file} = await victim(base)
    const planted = join(base, `ptc-run-${await deadPid()}-planted`)
    await mkdir(planted)
    await symlink(file, join(planted, 'link'))
    await sweepOrphanedScratchDirs(silentLogger, base)
    expect(existsSync(join(planted, 'link'))).toBe(true)
    expect(await readFile(file, 'utf8')).toBe('precious')
  })

  it("removes a killed server's probe dir beside the root; not a live one's, a link or another user's", async () => {
    const base = await tempBase()
    const {dir: outside, file} = await victim(base)
    const dead = await deadPid()
    const orphan = join(base, `ptc-mcp-probe-${dead}-AbC123`)
    await mkdir(join(orphan, 'scratch'), {recursive: true})
    await symlink(file, join(orphan, 'scratch', 'link'))
    const live = await createProbeDir(base)
    const planted = join(base, `ptc-mcp-probe-${dead}-link`)
    await symlink(outside, planted)
    const foreign = join(base, `ptc-mcp-probe-${dead}-foreign`)
    await mkdir(foreign)
    if (isRoot) await chown(foreign, 12_345, 12_345)

    await sweepOrphanedScratchDirs(silentLogger, base)

    expect(existsSync(orphan)).toBe(false)
    expect(existsSync(live)).toBe(true)
    expect((await lstat(planted)).isSymbolicLink()).toBe(true)
    expect(await readFile(file, 'utf8')).toBe('precious')
    expect(existsSync(foreign)).toBe(isRoot)
  })

  it('removes what a program made unreadable (mkdir 0o300, 0o000) with the files inside', async () => {
    const base = await tempBase()
    const dir = await createScratchDir(base)
    for (const mode of [0o300, 0o000, 0o500]) {
      const sub = join(dir, `d${mode.toString(8)}`)
      await mkdir(join(sub, 'inner'), {recursive: true})
      await writeFile(join(sub, 'inner', 'f'), 'x')
      await writeFile(join(sub, 'f'), 'x')
      await chmod(join(sub, 'inner'), mode)
      await chmod(sub, mode)
    }
    await removeScratchDir(dir)
    expect(existsSync(dir)).toBe(false)
    expect(await readdir(scratchRoot(base))).toEqual([])
  })

  it('removes a tree wider than one pass and deeper than a few levels', async () => {
    const base = await tempBase()
    const dir = await createScratchDir(base)
    await Promise.all(Array.from({length: 2500}, (_, n) => writeFile(join(dir, `f${n}`), '')))
    let deep = dir
    for (let level = 0; level < 40; level++) deep = join(deep, 'd')
    await mkdir(deep, {recursive: true})
    await removeScratchDir(dir)
    expect(existsSync(dir)).toBe(false)
  })
})
