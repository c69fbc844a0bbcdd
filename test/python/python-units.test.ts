// @tier integration
// The Python runtime's own unit tests (stdlib unittest, test/python/test_*.py): the seccomp
// filter's assembler, the runner's error formatter and its channel framer, the preflight check
// (SPEC §6.1) and the bootstrap's pure parts, run by the interpreter the suite uses.
import {execFile} from 'node:child_process'
import {dirname} from 'node:path'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'
import {expect, test} from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
const python = process.env.PTC_MCP_TEST_PYTHON ?? 'python3'

test('the Python unit tests pass (python -m unittest over test/python)', async () => {
  const {stderr} = await promisify(execFile)(
    python,
    ['-I', '-B', '-m', 'unittest', 'discover', '--start-directory', here, '--top-level-directory', here],
    {encoding: 'utf8'},
  ).catch((error: {stderr?: string}) => {
    throw new Error(`python -m unittest failed:\n${error.stderr ?? String(error)}`)
  })
  const ran = /^Ran (\d+) tests? /m.exec(stderr)
  expect(Number(ran?.[1])).toBeGreaterThanOrEqual(100)
  expect(stderr).toMatch(/^OK/m)
})
