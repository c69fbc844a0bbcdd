// @tier unit
import {existsSync} from 'node:fs'
import {mkdir, readFile, rename, stat, writeFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type ClaudeSandbox, createClaudeSandbox, FIXTURE_ENV} from '../../test/fixtures/claude/setup.js'
import {parseConfigText} from '../config/load.js'
import {configSchema} from '../config/schema.js'
import {PtcError} from '../shared/errors.js'
import {runningLauncher} from './launcher.js'
import {claudeDesktopConfigPath, defaultConfigPath} from './paths.js'
import {type InitOptions, planInit, writeConfigFile} from './plan.js'
import {shellQuote} from './render.js'

let sandbox: ClaudeSandbox

beforeEach(async () => {
  sandbox = await createClaudeSandbox()
})

afterEach(async () => {
  await sandbox.cleanup()
})

/** Literal secrets in the fixtures: none may reach a config written with env refs. */
const FIXTURE_SECRETS = [
  'sk-example-search-not-real',
  'example-events-key-not-real',
  'ghp_example_user_scope_not_real',
  'ntn_example_not_real',
  'example-db-password',
  'example-weather-key',
]

const plan = (options: InitOptions = {}) =>
  planInit({
    ...options,
    environment: {
      home: sandbox.home,
      cwd: sandbox.project,
      platform: 'linux',
      env: {},
      ...options.environment,
    },
  })

function expectPtcError(error: unknown, code: string): void {
  expect(error).toBeInstanceOf(PtcError)
  expect(error).toMatchObject({code, exitCode: 2})
}

describe('planInit from Claude Code', () => {
  it("merges the scopes with Claude Code's precedence (local, project, user) and says where each came from", async () => {
    const result = await plan()
    expect(result.servers.map((s) => [s.name, s.transport, s.scope])).toEqual([
      ['postgres', 'stdio', 'local'],
      ['time', 'stdio', 'local'],
      ['filesystem', 'stdio', 'project'],
      ['search', 'http', 'project'],
      ['events', 'sse', 'project'],
      ['github', 'stdio', 'project'],
      ['notion', 'http', 'user'],
    ])
    expect(result.servers.find((s) => s.name === 'notion')?.from).toBe('~/.claude.json, user scope')
    expect(result.servers.find((s) => s.name === 'github')?.from).toBe(
      `${sandbox.project}/.mcp.json, project scope`,
    )
    const skipped = Object.fromEntries(result.skipped.map((s) => [`${s.name} ${s.from}`, s.reason]))
    expect(skipped).toMatchObject({
      'github ~/.claude.json, user scope': expect.stringMatching(
        /Claude Code uses the one in .*\.mcp\.json, project scope/,
      ),
      'time ~/.claude.json, user scope': expect.stringMatching(
        /uses the one in ~\/\.claude\.json, local scope/,
      ),
      'ptc-mcp ~/.claude.json, user scope': expect.stringMatching(/runs ptc-mcp itself/),
      'dynamic-auth ~/.claude.json, user scope': expect.stringMatching(/headersHelper/),
      [`socket ${sandbox.project}/.mcp.json, project scope`]: expect.stringMatching(/"ws" is not supported/),
      [`rejected ${sandbox.project}/.mcp.json, project scope`]: expect.stringMatching(
        /turned down in Claude Code for this project: .*--include-unapproved imports it/,
      ),
    })
    expect(result.servers.map((s) => s.name)).not.toContain('elsewhere')
  })

  it('writes YAML that validates and expands to the converted servers', async () => {
    const result = await plan()
    const {config} = parseConfigText(result.yaml, {env: FIXTURE_ENV})
    expect(config.servers.map((s) => s.name)).toEqual(result.servers.map((s) => s.name))
    expect(config.servers.find((s) => s.name === 'github')).toEqual({
      name: 'github',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: {GITHUB_PERSONAL_ACCESS_TOKEN: 'g'},
      cwd: sandbox.project,
      connect_timeout_seconds: 120,
    })
    expect(result.yaml).toMatch(/^# ptc-mcp config written by "ptc-mcp init"/)
    expect(result.yaml).toMatch(/# from ~\/\.claude\.json, user scope\n(?: {2}#.*\n)* {2}- name: notion\n/)
  })

  it('copies literal secrets by default, flags each one in the report and in the file', async () => {
    const result = await plan()
    expect(result.secrets.map((s) => `${s.server} ${s.field} ${s.variable}`)).toEqual([
      'postgres env.PGPASSWORD PGPASSWORD',
      'search headers.Authorization SEARCH_TOKEN',
      'events headers.X-API-Key EVENTS_API_KEY',
      'notion headers.Authorization NOTION_TOKEN',
    ])
    expect(result.yaml).toContain('Authorization: Bearer ntn_example_not_real')
    expect(result.yaml).toContain('# headers.Authorization is a literal secret: consider ${NOTION_TOKEN}')
    expect(result.envVars).toEqual([{name: 'GITHUB_TOKEN', servers: ['github']}])
  })

  it('with env refs, writes no literal secret and lists every variable to export', async () => {
    const result = await plan({envRefs: true})
    for (const secret of FIXTURE_SECRETS) expect(result.yaml).not.toContain(secret)
    expect(result.yaml).toContain('Authorization: Bearer ${NOTION_TOKEN}')
    expect(result.envVars.map((v) => v.name)).toEqual([
      'EVENTS_API_KEY',
      'GITHUB_TOKEN',
      'NOTION_TOKEN',
      'PGPASSWORD',
      'SEARCH_TOKEN',
    ])
    const {config} = parseConfigText(result.yaml, {env: FIXTURE_ENV})
    expect(config.servers.find((s) => s.name === 'notion')).toMatchObject({
      headers: {Authorization: 'Bearer n'},
    })
    expect(() => parseConfigText(result.yaml, {env: {}})).toThrow(/NOTION_TOKEN/)
  })

  it('prints the claude mcp add line and the .mcp.json entry for the output path', async () => {
    const output = join(sandbox.home, 'my configs', 'ptc.yaml')
    const result = await plan({output, scope: 'project', launcher: ['/opt/npm/bin/ptc-mcp']})
    expect(result.output).toBe(output)
    expect(result.claudeAddCommand).toBe(
      `claude mcp add --scope project ptc-mcp -- /opt/npm/bin/ptc-mcp serve --config '${output}'`,
    )
    expect(result.mcpJson).toEqual({
      mcpServers: {
        'ptc-mcp': {type: 'stdio', command: '/opt/npm/bin/ptc-mcp', args: ['serve', '--config', output]},
      },
    })
  })

  it('registers this installation, never a package fetched by npx', async () => {
    const repository = resolve(import.meta.dirname, '../..')
    expect(runningLauncher('/usr/local/bin/ptc-mcp')).toEqual(['/usr/local/bin/ptc-mcp'])
    expect(runningLauncher(join(repository, 'bin', 'run.js'))).toEqual([
      'node',
      join(repository, 'bin', 'run.js'),
    ])
    expect(runningLauncher(join(repository, 'bin', 'dev.js'))).toEqual([
      'node',
      join(repository, 'bin', 'run.js'),
    ])
    const result = await plan()
    expect(result.claudeAddCommand).not.toContain('npx')
    expect(result.claudeAddCommand).toContain(` -- node ${join(repository, 'bin', 'run.js')} serve --config `)
  })

  it('suggests how to remove the proxied servers from Claude Code, in the right directory', async () => {
    const result = await plan()
    expect(result.removeCommands).toContainEqual({
      command: 'claude mcp remove --scope user notion',
      cwd: null,
    })
    expect(result.removeCommands).toContainEqual({
      command: 'claude mcp remove --scope local postgres',
      cwd: sandbox.project,
    })
    expect(result.removeCommands.map((c) => c.command).join(',')).not.toMatch(/ptc-mcp|socket/)
  })

  it('reads ~/.claude.json from $CLAUDE_CONFIG_DIR when set', async () => {
    const dir = join(sandbox.home, 'claude-dir')
    await mkdir(dir)
    await rename(join(sandbox.home, '.claude.json'), join(dir, '.claude.json'))
    const result = await plan({environment: {env: {CLAUDE_CONFIG_DIR: dir}}})
    expect(result.servers.find((s) => s.name === 'notion')?.from).toBe(
      '~/claude-dir/.claude.json, user scope',
    )
  })

  it('fails with a suggestion when Claude Code has no config at all', async () => {
    const error = await plan({environment: {home: join(sandbox.home, 'empty'), cwd: sandbox.home}}).catch(
      (error_: unknown) => error_,
    )
    expectPtcError(error, 'SOURCE_NOT_FOUND')
    expect((error as PtcError).suggestion).toMatch(/--from/)
    // A new user without any Claude Code config is told where the example to start from is.
    const example = /by hand from (\S+)\.$/.exec((error as PtcError).suggestion ?? '')?.[1]
    expect(example).toMatch(/\/config\.example\.yaml$/)
    expect(existsSync(example!)).toBe(true)
  })

  it('reports a Claude config that is not JSON, naming the file', async () => {
    await writeFile(join(sandbox.project, '.mcp.json'), '{"mcpServers": ')
    const error = await plan().catch((error_: unknown) => error_)
    expectPtcError(error, 'SOURCE_INVALID')
    expect((error as Error).message).toContain(join(sandbox.project, '.mcp.json'))
  })
})

describe('planInit from Claude Desktop or a file', () => {
  it('converts Claude Desktop servers, renaming and escaping where needed', async () => {
    const result = await plan({from: 'claude-desktop', envRefs: true})
    expect(result.servers.map((s) => [s.name, s.claudeName])).toEqual([
      ['My_Files', 'My Files'],
      ['weather', undefined],
      ['My-Files_2', 'My-Files'],
    ])
    expect(result.skipped.map((s) => s.name)).toEqual(['ptc', 'broken'])
    const {config} = parseConfigText(result.yaml, {env: FIXTURE_ENV})
    expect(config.servers.find((s) => s.name === 'weather')).toMatchObject({
      args: ['/opt/weather/index.js', '--api-key=w', '--units', 'metric'],
      env: {WEATHER_API_KEY: 'w', TEMPLATE: '${not-expanded-by-desktop}'},
    })
  })

  it("finds Claude Desktop's config on each platform", () => {
    const home = '/home/me'
    expect(claudeDesktopConfigPath({home, platform: 'darwin', env: {}})).toBe(
      '/home/me/Library/Application Support/Claude/claude_desktop_config.json',
    )
    expect(claudeDesktopConfigPath({home, platform: 'linux', env: {XDG_CONFIG_HOME: '/xdg'}})).toBe(
      '/xdg/Claude/claude_desktop_config.json',
    )
    expect(claudeDesktopConfigPath({home, platform: 'win32', env: {APPDATA: '/appdata'}})).toBe(
      '/appdata/Claude/claude_desktop_config.json',
    )
  })

  it('fails when Claude Desktop has no config', async () => {
    const error = await plan({from: 'claude-desktop', environment: {platform: 'darwin'}}).catch(
      (error_: unknown) => error_,
    )
    expectPtcError(error, 'SOURCE_NOT_FOUND')
  })

  it('reads a given .mcp.json as a project file, starting its servers in its directory', async () => {
    const result = await plan({from: join(sandbox.project, '.mcp.json'), environment: {cwd: sandbox.home}})
    expect(result.servers.map((s) => s.name)).toEqual([
      'filesystem',
      'search',
      'events',
      'github',
      'rejected',
    ])
    const {config} = parseConfigText(result.yaml, {env: FIXTURE_ENV})
    expect(config.servers[0]).toMatchObject({name: 'filesystem', cwd: sandbox.project})
  })

  it('reads a given file in the ~/.claude.json shape, with the local scope of the current directory', async () => {
    const result = await plan({from: join(sandbox.home, '.claude.json')})
    expect(result.servers.map((s) => s.name)).toEqual(['postgres', 'time', 'github', 'notion'])
  })

  it('rejects a missing file and a JSON file without servers', async () => {
    expectPtcError(await plan({from: 'nope.json'}).catch((error_: unknown) => error_), 'SOURCE_NOT_FOUND')
    const other = join(sandbox.home, 'package.json')
    await writeFile(other, '{"name": "x"}')
    expectPtcError(await plan({from: other}).catch((error_: unknown) => error_), 'SOURCE_INVALID')
  })

  it('keeps OAuth servers with oauth settings and gives the `ptc-mcp auth` line each needs', async () => {
    const source = join(sandbox.home, 'oauth.json')
    await writeFile(
      source,
      JSON.stringify({
        mcpServers: {
          linear: {type: 'http', url: 'https://mcp.linear.example/mcp', oauth: {}},
          sentry: {
            type: 'sse',
            url: 'https://mcp.sentry.example/sse',
            oauth: {clientId: 'ptc', callbackPort: 8123},
          },
          open: {type: 'http', url: 'https://open.example/mcp'},
        },
      }),
    )
    const result = await plan({from: source, launcher: ['/opt/bin/ptc-mcp']})
    const {config} = parseConfigText(result.yaml)
    expect(config.servers).toMatchObject([
      {name: 'linear', transport: 'http', oauth: {}},
      {name: 'sentry', transport: 'sse', oauth: {client_id: 'ptc', callback_port: 8123}},
      {name: 'open', transport: 'http'},
    ])
    expect(result.skipped).toEqual([])
    expect(result.signIn).toEqual([
      {server: 'linear', command: '/opt/bin/ptc-mcp auth linear'},
      {server: 'sentry', command: '/opt/bin/ptc-mcp auth sentry'},
    ])
    expect(result.notes).toContain(
      'open: no headers: if it signs in with OAuth, run `/opt/bin/ptc-mcp auth open` once',
    )
    const elsewhere = await plan({
      from: source,
      output: join(sandbox.home, 'my config.yaml'),
      launcher: ['node', '/src/ptc-mcp/bin/run.js'],
    })
    expect(elsewhere.signIn[0]?.command).toBe(
      `node /src/ptc-mcp/bin/run.js auth linear --config '${join(sandbox.home, 'my config.yaml')}'`,
    )
  })

  it('writes a valid empty config when the source has no servers', async () => {
    const empty = join(sandbox.home, 'empty.json')
    await writeFile(empty, '{"mcpServers": {}}')
    const result = await plan({from: empty})
    expect(result.servers).toEqual([])
    expect(configSchema.parse(parseConfigText(result.yaml).config).servers).toEqual([])
  })
})

describe('output paths', () => {
  it('defaults to $XDG_CONFIG_HOME/ptc-mcp/config.yaml, else ~/.config/ptc-mcp/config.yaml', async () => {
    expect(defaultConfigPath({home: '/h', env: {}})).toBe('/h/.config/ptc-mcp/config.yaml')
    expect(defaultConfigPath({home: '/h', env: {XDG_CONFIG_HOME: '/x'}})).toBe('/x/ptc-mcp/config.yaml')
    expect(defaultConfigPath({home: '/h', env: {XDG_CONFIG_HOME: 'relative'}})).toBe(
      '/h/.config/ptc-mcp/config.yaml',
    )
    expect((await plan()).output).toBe(join(sandbox.home, '.config', 'ptc-mcp', 'config.yaml'))
    expect((await plan({output: '~/c.yaml'})).output).toBe(join(sandbox.home, 'c.yaml'))
    expect((await plan({output: 'c.yaml'})).output).toBe(join(sandbox.project, 'c.yaml'))
  })

  it('quotes paths for the shell', () => {
    expect(shellQuote('/a/b.yaml', 'linux')).toBe('/a/b.yaml')
    expect(shellQuote("/it's here.yaml", 'linux')).toBe(`'/it'\\''s here.yaml'`)
  })
})

describe('writeConfigFile', () => {
  it('creates the directory and a file only its owner can read', async () => {
    const path = join(sandbox.home, 'new', 'dir', 'config.yaml')
    expect(await writeConfigFile(path, 'servers: []\n', false)).toEqual({backup: null})
    expect(await readFile(path, 'utf8')).toBe('servers: []\n')
    expect((await stat(path)).mode.toString(8)).toMatch(/600$/)
  })

  it('never overwrites without force', async () => {
    const path = join(sandbox.home, 'config.yaml')
    await writeFile(path, 'mine\n')
    const error = await writeConfigFile(path, 'new\n', false).catch((error_: unknown) => error_)
    expect(error).toMatchObject({
      code: 'FILE_EXISTS',
      exitCode: 2,
      suggestion: expect.stringMatching(/--force/),
    })
    expect(await readFile(path, 'utf8')).toBe('mine\n')
  })

  it('with force, replaces the file and keeps the old one as .bak', async () => {
    const path = join(sandbox.home, 'config.yaml')
    await writeFile(path, 'mine\n')
    expect(await writeConfigFile(path, 'new\n', true)).toEqual({backup: `${path}.bak`})
    expect(await readFile(path, 'utf8')).toBe('new\n')
    expect(await readFile(`${path}.bak`, 'utf8')).toBe('mine\n')
  })

  it('reports a path it cannot write as the user’s problem', async () => {
    const blocker = join(sandbox.home, 'blocker')
    await mkdir(blocker)
    await writeFile(join(blocker, 'file'), '')
    const error = await writeConfigFile(join(blocker, 'file', 'config.yaml'), 'x', false).catch(
      (error_: unknown) => error_,
    )
    expect(error).toMatchObject({code: 'USAGE', exitCode: 2})
  })
})
