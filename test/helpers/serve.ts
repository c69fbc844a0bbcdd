// Starts the built `ptc-mcp serve` as a real child process for end-to-end tests.
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stringify} from 'yaml'

import {SCRATCH_PREFIX, scratchRoot} from '../../src/execution/scratch.js'

export const BIN = resolve(import.meta.dirname, '../../bin/run.js')

export interface ServeSetup {
  /** The config file to pass with --config. */
  configPath: string
  /** argv for `node`: the built CLI running `serve` with this config. */
  args: string[]
  /** Environment with a private TMPDIR: the server's scratch directories land there. */
  env: Record<string, string>
  /** Working directory of serve. Default: the test's own. */
  cwd?: string
  scratchDirs(): string[]
  cleanup(): void
}

/** Writes a config to a temp dir and prepares the command line and environment `serve` runs with. */
export function prepareServe(config: Record<string, unknown>): ServeSetup {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-serve-test-'))
  const tmp = join(dir, 'tmp')
  mkdirSync(tmp)
  const configPath = join(dir, 'config.yaml')
  writeFileSync(configPath, stringify(config))
  return {
    configPath,
    args: [BIN, 'serve', '--config', configPath],
    env: {...(process.env as Record<string, string>), TMPDIR: tmp, PTC_MCP_LOG_LEVEL: 'warn'},
    scratchDirs: () =>
      existsSync(scratchRoot(tmp))
        ? readdirSync(scratchRoot(tmp)).filter((name) => name.startsWith(SCRATCH_PREFIX))
        : [],
    cleanup: () => rmSync(dir, {force: true, recursive: true}),
  }
}
