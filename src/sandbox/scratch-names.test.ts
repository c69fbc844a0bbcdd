// @tier unit
import {lstat, mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {afterEach, describe, expect, it} from 'vitest'

import {nameScratchDir, scratchRoot} from './scratch.js'

const bases: string[] = []

afterEach(async () => {
  for (const base of bases.splice(0)) await rm(base, {recursive: true, force: true})
})

async function tempBase(): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'ptc-scratch-names-'))
  bases.push(base)
  return base
}

describe('nameScratchDir (a forked child makes its scratch inside its own tmpfs)', () => {
  it('names distinct directories of this server under the private root, making none of them', async () => {
    const base = await tempBase()
    const names = await Promise.all(Array.from({length: 50}, () => nameScratchDir(base)))
    expect(new Set(names).size).toBe(50)
    for (const name of names) {
      expect(dirname(name)).toBe(scratchRoot(base))
      expect(basename(name)).toMatch(new RegExp(`^ptc-run-${process.pid}-[0-9a-z]+$`))
      await expect(lstat(name)).rejects.toThrow(/ENOENT/)
    }
    expect((await lstat(scratchRoot(base))).mode.toString(8).slice(-3)).toBe('700')
  })

  it('makes the root again when it was removed more than a second before', async () => {
    const base = await tempBase()
    await nameScratchDir(base)
    await rm(scratchRoot(base), {recursive: true})
    await sleep(1100)
    await nameScratchDir(base)
    expect((await lstat(scratchRoot(base))).isDirectory()).toBe(true)
  })
})
