// @tier sandbox
/**
 * A program that opens a file outside its scratch directory under the real Linux sandbox reads,
 * in its error, why: the sandbox refused it, and what is reachable (in every Linux tier: with bwrap
 * when installed, and Landlock + seccomp alone).
 */
import {afterAll, describe, expect, it} from 'vitest'

import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {createLinuxBackend} from '../../src/sandbox/linux/index.js'
import {type EngineHandle, startEngine} from './harness.js'

const HINT = 'hint: outside the sandbox: only the scratch directory is readable and writable'
const tiers = [{bwrap: false}, ...(findBwrap() ? [{bwrap: true}] : [])]
const engines: EngineHandle[] = []

afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.close()))
})

describe.runIf(process.platform === 'linux')('a file the sandbox refused', () => {
  for (const {bwrap} of tiers) {
    it(`is explained in the program's error (${bwrap ? 'bwrap' : 'landlock+seccomp'})`, async () => {
      const engine = await startEngine(createLinuxBackend({bwrap}))
      engines.push(engine)
      const outcome = await engine.run('print(open("/etc/passwd").read()[:10])')
      // Under bwrap the file does not even exist for the program; Landlock alone refuses it.
      expect(outcome.error).toContain(bwrap ? 'FileNotFoundError' : 'PermissionError')
      expect(outcome.error).toContain(HINT)
    })
  }
})
