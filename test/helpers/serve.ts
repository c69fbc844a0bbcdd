// Starts the built `ptc-mcp serve` as a real child process for end-to-end tests.
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stringify} from 'yaml'

import {SCRATCH_PREFIX, scratchRoot} from '../../src/sandbox/scratch.js'
import {spawnCollect, type SpawnOptions} from './processes.js'

export const BIN = resolve(import.meta.dirname, '../../bin/run.js')

/**
 * The built CLI with this process's environment, less PTC_MCP_CONFIG (a test names its config),
 * plus `options.env`.
 */
export function spawnCli(args: string[], options: SpawnOptions = {}): ReturnType<typeof spawnCollect> {
  const env: Record<string, string> = {...(process.env as Record<string, string>), ...options.env}
  delete env.PTC_MCP_CONFIG
  return spawnCollect(process.execPath, [BIN, ...args], {...options, env})
}

/**
 * Runs `check` in a fresh directory under `parent` as the working directory, with XDG_CONFIG_HOME
 * inside it and PTC_MCP_CONFIG unset: no config anywhere. Restores all three after.
 */
export async function withNoConfig<T>(parent: string, check: (dir: string) => Promise<T>): Promise<T> {
  const saved = {cwd: process.cwd(), xdg: process.env.XDG_CONFIG_HOME, env: process.env.PTC_MCP_CONFIG}
  const empty = mkdtempSync(join(parent, 'empty-'))
  process.chdir(empty)
  process.env.XDG_CONFIG_HOME = join(empty, 'xdg')
  delete process.env.PTC_MCP_CONFIG
  try {
    return await check(empty)
  } finally {
    process.chdir(saved.cwd)
    if (saved.xdg === undefined) delete process.env.XDG_CONFIG_HOME
    else process.env.XDG_CONFIG_HOME = saved.xdg
    if (saved.env !== undefined) process.env.PTC_MCP_CONFIG = saved.env
  }
}

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

/**
 * What these tests' configs add unless they set it: calls no rule covers run without asking. The
 * shipped default (asking, as Claude Code does) is what test/integration/approvals.test.ts tests;
 * elsewhere the calls' other behaviour is under test, through clients that cannot be asked.
 */
export const NO_UNLISTED_ASKING = {ask_unlisted: false}

/** Writes a config to a temp dir and prepares the command line and environment `serve` runs with. */
export function prepareServe(config: Record<string, unknown>): ServeSetup {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-serve-test-'))
  const tmp = join(dir, 'tmp')
  mkdirSync(tmp)
  const configPath = join(dir, 'config.yaml')
  const permissions = {...NO_UNLISTED_ASKING, ...(config.permissions as Record<string, unknown> | undefined)}
  writeFileSync(configPath, stringify({...config, permissions}))
  // Not the limit on MCP output of whoever runs the tests (SPEC §5): a test sets its own.
  const inherited = {...(process.env as Record<string, string>)}
  delete inherited.MAX_MCP_OUTPUT_TOKENS
  return {
    configPath,
    args: [BIN, 'serve', '--config', configPath],
    env: {
      ...inherited,
      TMPDIR: tmp,
      PTC_MCP_LOG_LEVEL: 'warn',
      // No managed Claude Code settings of the machine running the tests.
      PTC_MCP_CLAUDE_MANAGED_DIR: join(dir, 'managed'),
    },
    scratchDirs: () =>
      existsSync(scratchRoot(tmp))
        ? readdirSync(scratchRoot(tmp)).filter((name) => name.startsWith(SCRATCH_PREFIX))
        : [],
    cleanup: () => rmSync(dir, {force: true, recursive: true}),
  }
}
