// @tier unit
import {existsSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {architectureRecipe, productFiles} from '../../test/helpers/repository-text.js'
import {PACKAGE_ROOT} from './package-root.js'
import {DEFAULT_BOUNDS, programLimits} from './program-limits.js'

/**
 * ARCHITECTURE.md's "A limit", held by a test: each of a program's limits is built in one place
 * (program-limits.ts) and read where it is enforced, and nowhere else. A new limit added to the
 * builder fails here until its places are listed; a second builder, or a new reader, fails too.
 */

/** Where each limit is made (program-limits.ts) and read, by file name (folders may move). */
const PLACES: Record<string, string[]> = {
  // The child's rlimits: set by the runner from the start message.
  cpu_seconds: ['program-child.ts', 'program-limits.ts', 'runner.py'],
  cpu_hard_seconds: ['program-limits.ts', 'runner.py'],
  address_space_bytes: ['program-limits.ts', 'runner.py'],
  file_size_bytes: ['program-limits.ts', 'runner.py'],
  open_files: ['program-limits.ts', 'runner.py'],
  // The sandbox's bounds: the Linux backend's tmpfs and the scratch watch.
  scratchBytes: ['bwrap.ts', 'index.ts', 'program-limits.ts', 'scratch-dir.ts'],
  scratchFiles: ['index.ts', 'program-limits.ts', 'scratch-dir.ts'],
  // The Linux backend passes it to confine.py and namespaces.py; backend.ts and doctor's checks.ts
  // use the same word for how it is enforced (BoundsInForce).
  threads: ['backend.ts', 'checks.ts', 'confine.py', 'index.ts', 'namespaces.py', 'program-limits.ts'],
}

const sources = productFiles(/\.(ts|py)$/).map((path) => ({path, text: readFileSync(path, 'utf8')}))

/** Code that makes or reads the limit: `limit:` or `.limit` in TypeScript, `"limit"` in Python. */
function places(limit: string): string[] {
  const ts = new RegExp(String.raw`\b${limit}:|\.${limit}\b`)
  const py = new RegExp(`"${limit}"`)
  const found = sources.filter(({path, text}) => (path.endsWith('.py') ? py : ts).test(text))
  return found.map(({path}) => basename(path)).sort()
}

describe('a limit is built in one place and read where it is enforced', () => {
  const built = programLimits({
    timeout_seconds: 10,
    max_tool_result_bytes: 1024,
    max_scratch_bytes: 1_048_576,
  })

  it('every limit the builder makes is listed with its places', () => {
    expect(Object.keys(PLACES).sort()).toEqual(
      [...Object.keys(built.child), ...Object.keys(built.bounds)].sort(),
    )
  })

  it.each(Object.entries(PLACES))('%s: made and read only in its places', (limit, expected) => {
    expect(places(limit)).toEqual(expected)
  })

  it("the CPU limit's hard value sits a second above its soft one, and the defaults come from the builder", () => {
    expect(built.child.cpu_hard_seconds - built.child.cpu_seconds).toBe(1)
    expect(DEFAULT_BOUNDS.scratchFiles).toBe(DEFAULT_BOUNDS.scratchBytes / 4096)
  })

  it("ARCHITECTURE.md's recipe names at most three files, each of which exists", () => {
    const {files} = architectureRecipe('A limit')
    expect(files.size).toBeGreaterThan(0)
    expect(files.size).toBeLessThanOrEqual(3)
    for (const file of files) expect(existsSync(join(PACKAGE_ROOT, file)), file).toBe(true)
  })
})
