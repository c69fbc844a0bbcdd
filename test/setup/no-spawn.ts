// Setup file of the unit layer: a unit test spawns no process. Any attempt (ours or a library's)
// throws, and fails the test even when the code under test caught the error, naming the layer the
// test belongs in instead.
import childProcess from 'node:child_process'
import {syncBuiltinESMExports} from 'node:module'
import {afterEach} from 'vitest'

const spawning = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const
const attempts: string[] = []

for (const name of spawning) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    value() {
      attempts.push(name)
      throw new Error(`child_process.${name} in a unit test`)
    },
    writable: true,
  })
}

syncBuiltinESMExports()

afterEach(() => {
  if (attempts.length === 0) return
  const tried = [...new Set(attempts.splice(0))].join(', ')
  throw new Error(
    `a unit test tried child_process.${tried}: a test that starts a process is not a unit test (make its first line \`// @tier integration\`, or \`sandbox\` when it starts sandboxed children; see test/setup/tiers.ts)`,
  )
})
