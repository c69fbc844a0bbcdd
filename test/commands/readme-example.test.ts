// @tier integration
// The README shows what the bundled example really prints: run it and compare.
import {readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

import {spawnCollect} from '../helpers/processes.js'
import {BIN} from '../helpers/serve.js'

const ROOT = resolve(import.meta.dirname, '../..')

/** The code block between the example-output markers of README.md. */
function readmeOutput(): string {
  const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8')
  const block = /<!-- example-output:start -->\n```\n([^]*?)```\n<!-- example-output:end -->/.exec(readme)
  expect(block, 'README.md has the example-output block').not.toBeNull()
  return block![1]!
}

/** The time in the trace line is the only part that changes from run to run. */
const withoutTime = (text: string) =>
  text.replace(/^(\[tool calls: [^;\]]*; )\d+\.\ds([;\]].*)$/m, '$1N.Ns$2')

describe('README', () => {
  it('shows exactly what `npm run example` prints (timing aside), from any working directory', async () => {
    const args = [
      BIN,
      'run',
      '--config',
      resolve(ROOT, 'examples/config.yaml'),
      resolve(ROOT, 'examples/programs/revenue-trend.py'),
    ]
    const env = {...(process.env as Record<string, string>)}
    delete env.PTC_MCP_CONFIG
    const {code, stdout, stderr} = await spawnCollect(process.execPath, args, {cwd: tmpdir(), env}).done
    expect(code, stderr).toBe(0)
    expect(withoutTime(stdout)).toBe(withoutTime(readmeOutput()))
  })
})
