// @tier integration
/**
 * The examples in `--help` run as printed from any directory (SPEC §9: they use the bundled
 * example): pasted into a shell whose working directory has no examples/ of its own, each exits 0.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {spawnCollect} from '../helpers/processes.js'
import {BIN, spawnCli} from '../helpers/serve.js'

const elsewhere = mkdtempSync(join(tmpdir(), 'ptc-help-examples-'))
afterAll(() => rmSync(elsewhere, {recursive: true, force: true}))

/** The example lines of `COMMAND --help`, as a user would paste them (without the `$ `). */
async function examples(command: string): Promise<string[]> {
  const help = await spawnCli([command, '--help'], {cwd: elsewhere}).done
  expect(help.code).toBe(0)
  const section = help.stdout.slice(help.stdout.indexOf('EXAMPLES'), help.stdout.indexOf('FLAG DESCRIPTIONS'))
  return section
    .split('\n')
    .map((line) => line.trim().replace(/^\$ /, ''))
    .filter((line) => line.includes('ptc-mcp '))
}

describe('help examples run from anywhere', () => {
  for (const command of ['run', 'list', 'inspect']) {
    it(`every example of ${command} --help exits 0 in a directory without examples/`, async () => {
      const lines = await examples(command)
      expect(lines.length).toBeGreaterThan(0)
      for (const line of lines) {
        // `ptc-mcp` is this checkout's bin; everything else exactly as printed.
        const pasted = line.replaceAll(
          /(^|\| )ptc-mcp /g,
          `$1${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `,
        )
        const env = {...(process.env as Record<string, string>)}
        delete env.PTC_MCP_CONFIG
        const result = await spawnCollect('sh', ['-c', pasted], {cwd: elsewhere, env, timeoutMs: 60_000}).done
        expect(result.code, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0)
      }
    }, 120_000)
  }
})
