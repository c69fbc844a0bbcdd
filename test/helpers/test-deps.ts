// Where the integration suites find what they use besides the product: Claude Code and the
// third-party MCP servers, installed into .test-deps/ by scripts/install-test-deps.js (npm test
// runs it). A checkout whose node_modules still holds them (an older install) works too.
import {existsSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** The directory scripts/install-test-deps.js installs into. */
export const TEST_DEPS = join(ROOT, '.test-deps')
const INSTALLED = join(TEST_DEPS, 'node_modules')
const fromTestDeps = createRequire(join(TEST_DEPS, 'package.json'))
const fromRoot = createRequire(join(ROOT, 'package.json'))

/** The path of a file in a test dependency, e.g. `@modelcontextprotocol/server-everything/dist/index.js`. */
export function testDependency(specifier: string): string {
  try {
    return fromTestDeps.resolve(specifier)
  } catch {
    try {
      return fromRoot.resolve(specifier)
    } catch {
      throw new Error(
        `${specifier} is not installed: run \`node scripts/install-test-deps.js\` (npm test does)`,
      )
    }
  }
}

/** The directory holding the `claude` command (Claude Code, with its native binary in place). */
export const CLAUDE_BIN_DIR = existsSync(join(INSTALLED, '.bin', 'claude'))
  ? join(INSTALLED, '.bin')
  : join(ROOT, 'node_modules', '.bin')
