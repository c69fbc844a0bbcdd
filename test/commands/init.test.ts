// @tier integration
import {runCommand} from '@oclif/test'
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, readFile, stat, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {InitResult} from '../../src/commands/init.js'

import {loadConfig} from '../../src/config/load.js'
import {type ClaudeSandbox, createClaudeSandbox, FIXTURE_ENV} from '../fixtures/claude/setup.js'
import {ROOT, withExitCode} from '../helpers/command-exit.js'
import {CLAUDE_BIN_DIR} from '../helpers/test-deps.js'

/** In-process, the running bin is vitest's: init registers this repository's bin/run.js. */
const LAUNCH = `node ${fileURLToPath(new URL('../../bin/run.js', import.meta.url))}`

let sandbox: ClaudeSandbox
let saved: {cwd: string; env: Record<string, string | undefined>}

/** Variables the command reads. Set and restored one by one: os.homedir() reads the real environment. */
const ENV_KEYS = ['HOME', 'XDG_CONFIG_HOME', 'CLAUDE_CONFIG_DIR', 'PTC_MCP_CONFIG'] as const

function setEnv(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key]
  else process.env[key] = value
}

beforeEach(async () => {
  sandbox = await createClaudeSandbox()
  saved = {cwd: process.cwd(), env: Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]))}
  // The command reads the real process's home and directory: point both at the fixtures.
  for (const key of ENV_KEYS) setEnv(key, undefined)
  setEnv('HOME', sandbox.home)
  process.chdir(sandbox.project)
})

afterEach(async () => {
  process.chdir(saved.cwd)
  for (const key of ENV_KEYS) setEnv(key, saved.env[key])
  process.exitCode = undefined
  await sandbox.cleanup()
})

const runInit = async (argv: string[]) =>
  withExitCode(await runCommand<InitResult>(['init', ...argv], {root: ROOT}))

const defaultPath = () => join(sandbox.home, '.config', 'ptc-mcp', 'config.yaml')

describe('ptc-mcp init', () => {
  it('writes a config that loads, without ptc-mcp itself, and prints how to register it', async () => {
    const run = await runInit([])
    expect(run.error).toBeUndefined()
    const path = defaultPath()
    expect(run.result?.written).toBe(path)
    const loaded = await loadConfig({flag: path, env: FIXTURE_ENV, cwd: sandbox.project})
    expect(loaded.warnings).toEqual([])
    expect(loaded.config.servers.map((s) => s.name)).toEqual([
      'postgres',
      'time',
      'filesystem',
      'search',
      'events',
      'github',
      'notion',
    ])
    expect(run.stdout).toContain(`claude mcp add --scope user ptc-mcp -- ${LAUNCH} serve --config ${path}\n`)
    // The report ends with what to run next: doctor, for this config.
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`Next: ${LAUNCH} doctor --config ${path}`)
    expect(run.stdout).toMatch(/ptc-mcp: it runs ptc-mcp itself/)
    expect(run.stdout).toContain('claude mcp remove --scope user notion')
    // Each copied literal secret is a warning on stderr.
    expect(run.stderr).toMatch(/notion: headers\.Authorization is a literal secret/)
    expect(run.stderr.match(/literal secret/g)).toHaveLength(4)
    expect((await stat(path)).mode.toString(8)).toMatch(/600$/)
  })

  it('refuses to overwrite an existing config without --force (exit code 2)', async () => {
    const path = join(sandbox.project, 'existing.yaml')
    await writeFile(path, '# mine\n')
    const run = await runInit(['--output', path])
    expect(run.error?.oclif?.exit).toBe(2)
    expect(run.error?.code).toBe('FILE_EXISTS')
    expect(run.error?.message).toContain(path)
    expect(await readFile(path, 'utf8')).toBe('# mine\n')

    const forced = await runInit(['--output', path, '--force'])
    expect(forced.error).toBeUndefined()
    expect(forced.result?.backup).toBe(`${path}.bak`)
    expect(await readFile(`${path}.bak`, 'utf8')).toBe('# mine\n')
    expect(await readFile(path, 'utf8')).toMatch(/^# ptc-mcp config written by/)
  })

  it('writes to --config when no --output is given', async () => {
    const run = await runInit(['--config', 'here.yaml'])
    expect(run.result?.written).toBe(join(sandbox.project, 'here.yaml'))
    expect(run.stdout).toContain(`--config ${join(sandbox.project, 'here.yaml')}`)
  })

  it('--json returns the report and prints only that JSON', async () => {
    const run = await runInit(['--json', '--env-refs', '--scope', 'local'])
    const json = JSON.parse(run.stdout) as InitResult
    expect(json).toEqual(run.result)
    expect(json.written).toBe(defaultPath())
    expect(json.servers).toContainEqual({
      name: 'notion',
      transport: 'http',
      from: '~/.claude.json, user scope',
      scope: 'user',
    })
    expect(json.skipped).toContainEqual(
      expect.objectContaining({name: 'ptc-mcp', reason: expect.stringMatching(/ptc-mcp itself/)}),
    )
    expect(json.secrets).toContainEqual({
      server: 'notion',
      field: 'headers.Authorization',
      variable: 'NOTION_TOKEN',
      replaced: true,
    })
    expect(json.envVars.map((v) => v.name)).toContain('NOTION_TOKEN')
    expect(json.claudeAddCommand).toBe(
      `claude mcp add --scope local ptc-mcp -- ${LAUNCH} serve --config ${defaultPath()}`,
    )
    expect(json.yaml).toBe(await readFile(defaultPath(), 'utf8'))
    expect(json.yaml).not.toContain('ntn_example_not_real')
    expect(run.stderr).toBe('')
  })

  it('--json reports an existing file as a JSON error with exit code 2', async () => {
    await runInit([])
    const run = await runInit(['--json'])
    expect(run.exitCode).toBe(2)
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: {code: 'FILE_EXISTS', suggestion: expect.stringMatching(/--force/)},
    })
  })

  it('--dry-run prints the config on stdout, the report on stderr, and writes nothing', async () => {
    const run = await runInit(['--dry-run', '--from', 'claude-desktop'])
    expect(run.result?.written).toBeNull()
    expect(run.stdout).toMatch(/^# ptc-mcp config written by/)
    expect(run.stdout).not.toContain('claude mcp add')
    expect(run.stderr).toContain(`claude mcp add --scope user ptc-mcp -- ${LAUNCH} serve --config`)
    expect(run.stderr).toContain('Dry run: nothing written')
    await expect(stat(defaultPath())).rejects.toThrow()
  })

  it('fails with exit code 2 when the source does not exist', async () => {
    const run = await runInit(['--from', 'missing.json'])
    expect(run.error?.oclif?.exit).toBe(2)
    expect(run.error?.code).toBe('SOURCE_NOT_FOUND')
  })
})

/** Claude Code's own binary (installed by scripts/install-test-deps.js). */
const CLAUDE = join(CLAUDE_BIN_DIR, 'claude')

describe.runIf(existsSync(CLAUDE))("a cloned repository's .mcp.json, as Claude Code sees it", () => {
  it('a server `claude mcp list` shows as pending approval is not imported, and init says why', async () => {
    const clone = join(sandbox.home, 'cloned-repo')
    await mkdir(clone)
    await writeFile(
      join(clone, '.mcp.json'),
      JSON.stringify({mcpServers: {planted: {command: 'node', args: ['-e', 'process.exit(1)']}}}),
    )
    process.chdir(clone)
    const listed = execFileSync(CLAUDE, ['mcp', 'list'], {
      cwd: clone,
      env: {...process.env, HOME: sandbox.home, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1'},
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(listed).toMatch(/planted: .*Pending approval/)
    const run = await runInit(['--dry-run'])
    expect(run.error).toBeUndefined()
    expect(run.result?.servers.map((s) => s.name)).not.toContain('planted')
    expect(run.stderr).toMatch(
      / {2}planted: pending approval in Claude Code for this project .*--include-unapproved imports it/,
    )
    expect(run.stderr).toContain(`init --output ${clone}/ptc-mcp.yaml --scope project`)
    const included = await runInit(['--dry-run', '--include-unapproved'])
    expect(included.result?.servers.map((s) => s.name)).toContain('planted')
  }, 90_000)
})
