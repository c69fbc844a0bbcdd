import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {silentLogger} from '../log.js'
import {sweepOrphanedScratchDirs} from './child.js'

const dirs: string[] = []

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, {recursive: true, force: true})))
})

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], {stdio: 'ignore'})
  await new Promise((resolve) => {
    child.once('exit', resolve)
  })
  return child.pid!
}

describe('sweepOrphanedScratchDirs', () => {
  it("removes the scratch dirs of servers that are gone, without following links, and keeps the others'", async () => {
    const base = await mkdtemp(join(tmpdir(), 'ptc-sweep-test-'))
    const outside = await mkdtemp(join(tmpdir(), 'ptc-sweep-outside-'))
    dirs.push(base, outside)
    await writeFile(join(outside, 'keep.txt'), 'precious')

    const orphan = join(base, `ptc-run-${await deadPid()}-AbC123`)
    await mkdir(join(orphan, 'sub'), {recursive: true})
    await writeFile(join(orphan, 'sub', 'data.txt'), 'left behind')
    await symlink(outside, join(orphan, 'link-to-dir'))
    await symlink(join(outside, 'keep.txt'), join(orphan, 'sub', 'link-to-file'))
    const mine = join(base, `ptc-run-${process.pid}-XyZ789`)
    const unnamed = join(base, 'ptc-run-AbCdEf')
    await mkdir(mine)
    await mkdir(unnamed)

    await sweepOrphanedScratchDirs(silentLogger, base)

    expect(existsSync(orphan)).toBe(false)
    expect(existsSync(mine)).toBe(true)
    expect(existsSync(unnamed)).toBe(true)
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('precious')
  })
})
