// @tier unit
// Every test file declares its tier on its first line (test/setup/tiers.ts); a file declared `unit`
// imports nothing that starts a process (not child_process, not a test or bench helper that spawns),
// and a file that starts sandboxed children through the sandbox harness is declared `sandbox`.
// Planted files show each check refusing.
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {
  declaredTier,
  SANDBOX_HARNESS,
  spawningImports,
  testFiles,
  testsByTier,
  usesSandboxHarness,
  valueImports,
} from '../setup/tiers.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const onDisk = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined)

/** The repository's files, with `planted` (repository paths to text) laid over them. */
function withPlanted(planted: Record<string, string>) {
  return (path: string) => {
    const relativePath = path.slice(root.length + 1)
    return relativePath in planted ? planted[relativePath] : onDisk(path)
  }
}

describe('test tiers', () => {
  it('every test file declares one of the four tiers, and vitest runs each file in its tier alone', () => {
    const byTier = testsByTier(root)
    const declared = Object.values(byTier).flat()
    expect(declared.sort()).toEqual(testFiles(root))
    expect(new Set(declared).size).toBe(declared.length)
    expect(byTier.unit.length).toBeGreaterThan(100)
  })

  it('no test file declared unit imports child_process or a helper that spawns', () => {
    const offenders = testsByTier(root)
      .unit.map((file) => ({file, imports: spawningImports(root, file, onDisk)}))
      .filter(({imports}) => imports.length > 0)
    expect(offenders).toEqual([])
  })

  it('a test file that starts sandboxed children through the sandbox harness is declared sandbox', () => {
    const byTier = testsByTier(root)
    const elsewhere = [...byTier.unit, ...byTier.integration, ...byTier['claude-code']]
    expect(elsewhere.filter((file) => usesSandboxHarness(root, file, onDisk))).toEqual([])
    expect(byTier.sandbox.filter((file) => usesSandboxHarness(root, file, onDisk)).length).toBeGreaterThan(5)
    const planted = withPlanted({
      'test/integration/planted.test.ts': "import {startEngine} from '../sandbox/harness.js'\n",
    })
    expect(usesSandboxHarness(root, 'test/integration/planted.test.ts', planted)).toBe(true)
    expect(SANDBOX_HARNESS).toBe('test/sandbox/harness.ts')
  })

  it('refuses a file without a tier, and a tier that does not exist', () => {
    expect(declaredTier("import {it} from 'vitest'\n")).toEqual({
      problem: expect.stringContaining('// @tier'),
    })
    expect(declaredTier('// @tier fast\n')).toEqual({problem: expect.stringContaining('unknown tier "fast"')})
    expect(declaredTier('// @tier sandbox\n// a sandbox test\n')).toEqual({tier: 'sandbox'})
  })

  it('finds child_process and spawning helpers among a planted unit test’s imports, through helpers', () => {
    const read = withPlanted({
      'src/planted.test.ts': [
        '// @tier unit',
        "import type {ChildProcess} from 'node:child_process'",
        "import {spawn} from 'node:child_process'",
        "import {startFixture} from '../test/fixtures/start-fixture.js'",
        "import {prepareServe} from '../test/helpers/serve.js'",
        "import {isRecord} from './shared/guards.js'",
      ].join('\n'),
    })
    const found = spawningImports(root, 'src/planted.test.ts', read)
    expect(found[0]).toBe('node:child_process')
    expect(found[1]).toMatch(
      /^\.\.\/test\/fixtures\/start-fixture\.js \(via test\/fixtures\/start-fixture\.ts → node:child_process\)$/,
    )
    // serve.ts spawns through processes.ts: the chain names the helper in between.
    expect(found[2]).toMatch(
      /^\.\.\/test\/helpers\/serve\.js \(via test\/helpers\/serve\.ts → .* → node:child_process\)$/,
    )
    expect(found).toHaveLength(3)
  })

  it('reads value imports, not type-only ones', () => {
    const text = [
      "import type {A} from './a.js'",
      "import {b} from './b.js'",
      "import './c.js'",
      "export {d} from './d.js'",
      "const e = await import('./e.js')",
    ].join('\n')
    expect(valueImports(text)).toEqual(['./b.js', './c.js', './d.js', './e.js'])
  })
})
