// @tier integration
// A new user's first hour, end to end: a fresh clone is packed (prepack builds dist/), the tarball
// is installed into a private prefix, `init` writes a config from Claude Code's servers and prints
// the registration line, that line goes into a real `claude mcp add`, and `claude mcp list` shows
// ptc-mcp connected. One test: the build and the install are the slow part.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join, resolve} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type Finished, spawnCollect} from '../helpers/processes.js'
import {CLAUDE_BIN_DIR} from '../helpers/test-deps.js'

const ROOT = resolve(import.meta.dirname, '../..')
const CLAUDE_BIN = CLAUDE_BIN_DIR
const FINANCE_SERVER = join(ROOT, 'examples', 'finance-server.js')

const run = (
  command: string,
  args: string[],
  options: {cwd: string; env: Record<string, string>; timeoutMs: number},
): Promise<Finished> => spawnCollect(command, args, options).done

/** Runs and expects exit 0; the error shows what the command printed. */
async function succeed(...args: Parameters<typeof run>): Promise<Finished> {
  const result = await run(...args)
  if (result.code !== 0) {
    throw new Error(
      `${args[0]} ${args[1].join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`,
    )
  }
  return result
}

describe('from a fresh clone to a connected Claude Code', () => {
  let dir: string

  beforeAll(() => {
    // realpath: Claude Code and npm print resolved paths.
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-first-hour-')))
  })

  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('npm pack, install the tarball, init, claude mcp add with the printed line, claude mcp list: Connected', async () => {
    expect(
      existsSync(join(CLAUDE_BIN, 'claude')),
      "Claude Code is installed by the suites' setup step: run `node scripts/install-test-deps.js` (npm test does)",
    ).toBe(true)
    const base = {...(process.env as Record<string, string>)}
    for (const name of ['PTC_MCP_CONFIG', 'XDG_CONFIG_HOME', 'CLAUDE_CONFIG_DIR', 'npm_config_prefix'])
      delete base[name]

    // A fresh clone of what is committed; the dependencies already installed stand in for `npm ci`.
    const clone = join(dir, 'clone')
    await succeed('git', ['clone', '--quiet', '--no-hardlinks', ROOT, clone], {
      cwd: dir,
      env: base,
      timeoutMs: 60_000,
    })
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir')
    const packed = await succeed('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: clone,
      env: base,
      timeoutMs: 240_000,
    })
    const [pack] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [
      {filename: string; files: Array<{path: string}>},
    ]
    const files = pack.files.map((f) => f.path)
    expect(files).toEqual(
      expect.arrayContaining(['LICENSE', 'bin/run.js', 'dist/commands/serve.js', 'oclif.manifest.json']),
    )

    // Installed as `npm install -g` would, into a private prefix.
    const prefix = join(dir, 'prefix')
    await succeed(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        join(dir, pack.filename),
      ],
      {cwd: dir, env: base, timeoutMs: 240_000},
    )
    const bin = join(prefix, 'bin', 'ptc-mcp')
    // help and -v come from the installed dependencies alone (no devDependency behind them).
    const [help, version] = await Promise.all([
      succeed(bin, ['help'], {cwd: dir, env: base, timeoutMs: 60_000}),
      succeed(bin, ['-v'], {cwd: dir, env: base, timeoutMs: 60_000}),
    ])
    expect(help.stdout).toMatch(/^\s+serve\s/m)
    expect(version.stdout).toMatch(/^ptc-mcp\/\d+\.\d+\.\d+ /)

    // Claude Code's own config: a working stdio server, and a remote one whose token is not set.
    const home = join(dir, 'home')
    mkdirSync(home)
    const claudeConfig = {
      mcpServers: {
        finance: {type: 'stdio', command: process.execPath, args: [FINANCE_SERVER]},
        search: {
          type: 'http',
          url: 'https://search.example.com/mcp',
          headers: {Authorization: 'Bearer sk-not-real'},
        },
      },
    }
    writeFileSync(join(home, '.claude.json'), JSON.stringify(claudeConfig))
    const project = join(dir, 'work')
    mkdirSync(project)
    const env = {
      ...base,
      HOME: home,
      PATH: `${CLAUDE_BIN}${delimiter}${base.PATH ?? ''}`,
      DISABLE_AUTOUPDATER: '1',
    }
    const init = await succeed(bin, ['init', '--env-refs'], {cwd: project, env, timeoutMs: 60_000})
    const configPath = join(home, '.config', 'ptc-mcp', 'config.yaml')
    const line = init.stdout
      .split('\n')
      .find((l) => l.trim().startsWith('claude mcp add'))
      ?.trim()
    expect(line).toBe(`claude mcp add --scope user ptc-mcp -- ${bin} serve --config ${configPath}`)

    // Claude Code with a home of its own, so it checks ptc-mcp alone. The search token is now a
    // ${VAR} reference that is not set: that server is unavailable, and ptc-mcp still connects.
    const claudeHome = join(dir, 'claude-home')
    mkdirSync(claudeHome)
    // MCP_TIMEOUT: a loaded CI machine may take a while to start node twice; the default is tighter.
    const claudeEnv = {...env, HOME: claudeHome, MCP_TIMEOUT: '60000'}
    await succeed('sh', ['-c', line!], {cwd: project, env: claudeEnv, timeoutMs: 60_000})
    const list = await succeed('claude', ['mcp', 'list'], {cwd: project, env: claudeEnv, timeoutMs: 120_000})
    expect(list.stdout).toContain(`ptc-mcp: ${bin} serve --config ${configPath} - ✔ Connected`)
    expect(readdirSync(dir).filter((name) => name.endsWith('.tgz'))).toEqual([pack.filename])
  }, 600_000)
})
