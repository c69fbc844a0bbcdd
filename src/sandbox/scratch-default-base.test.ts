// @tier unit
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {afterEach, describe, expect, it} from 'vitest'

import {nameScratchDir, scratchRoot} from './scratch.js'

const saved = process.env.TMPDIR
const bases: string[] = []

afterEach(async () => {
  if (saved === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = saved
  for (const base of bases.splice(0)) await rm(base, {recursive: true, force: true})
})

describe('nameScratchDir without a base (serve: os.tmpdir(), read with the root check)', () => {
  it("names under the temporary directory's root, and follows TMPDIR once the check is due", async () => {
    const first = await mkdtemp(join(tmpdir(), 'ptc-scratch-default-'))
    const second = await mkdtemp(join(tmpdir(), 'ptc-scratch-default-'))
    bases.push(first, second)
    // A check made before this test (another test's default) must be over first.
    await sleep(1100)
    process.env.TMPDIR = first
    expect(dirname(await nameScratchDir())).toBe(scratchRoot(first))
    process.env.TMPDIR = second
    // Within the second the root was checked, the same root: TMPDIR is not read per child.
    expect(dirname(await nameScratchDir())).toBe(scratchRoot(first))
    await sleep(1100)
    expect(dirname(await nameScratchDir())).toBe(scratchRoot(second))
  })
})
