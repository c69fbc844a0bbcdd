// @tier unit
import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ConfigError} from '../shared/errors.js'
import {findConfig} from './discover.js'
import {loadConfig} from './load.js'
import {configSchema} from './schema.js'

let dir: string
/** An environment with nothing ptc-mcp reads unless a test sets it. */
let env: Record<string, string>

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-mcp-config-'))
  env = {HOME: join(dir, 'home')}
})

afterEach(async () => {
  await rm(dir, {recursive: true, force: true})
})

async function write(relative: string, text: string): Promise<string> {
  const path = join(dir, relative)
  await mkdir(resolve(path, '..'), {recursive: true})
  await writeFile(path, text)
  return path
}

/** Loads `text` as the config and returns the ConfigError's message. */
async function errorFor(text: string, extraEnv: Record<string, string> = {}): Promise<string> {
  const path = await write('config.yaml', text)
  const error = await loadConfig({flag: path, cwd: dir, env: {...env, ...extraEnv}}).catch(
    (error_: unknown) => error_,
  )
  expect(error).toBeInstanceOf(ConfigError)
  const {message} = error as ConfigError
  expect(message.startsWith(`Invalid config ${path}:\n`)).toBe(true)
  return message
}

/** Asserts a ConfigError with exactly this message (its suggestion is not compared). */
async function expectConfigError(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await promise.then(
    () => {},
    (error_: unknown) => error_,
  )
  expect(error).toBeInstanceOf(ConfigError)
  expect((error as ConfigError).message).toBe(message)
  expect((error as ConfigError).suggestion).toBeTruthy()
  // Shown after a "Fix:" label (serve's answers, doctor's checks): "Fix: Fix the..." reads badly.
  expect((error as ConfigError).suggestion).not.toMatch(/^Fix\b/)
}

/** The `path: message` lines of a config error. */
const lines = (message: string) =>
  message
    .split('\n')
    .slice(1)
    .map((line) => line.trim())

describe('findConfig', () => {
  it('prefers --config, then PTC_MCP_CONFIG, then ./ptc-mcp.yaml, then ./config.yaml, then $XDG_CONFIG_HOME/ptc-mcp/config.yaml', async () => {
    const flag = await write('flag.yaml', '')
    const fromEnv = await write('env.yaml', '')
    const cwdFile = await write('work/config.yaml', '')
    const xdgFile = await write('xdg/ptc-mcp/config.yaml', '')
    const cwd = join(dir, 'work')
    const all = {...env, PTC_MCP_CONFIG: fromEnv, XDG_CONFIG_HOME: join(dir, 'xdg')}

    expect(findConfig({flag, cwd, env: all})).toEqual({path: flag, searched: [flag], source: 'flag'})
    expect(findConfig({cwd, env: all})).toEqual({path: fromEnv, searched: [fromEnv], source: 'env'})
    const withoutVariable = {...all, PTC_MCP_CONFIG: ''}
    expect(findConfig({cwd, env: withoutVariable})).toEqual({
      path: cwdFile,
      searched: [join(cwd, 'ptc-mcp.yaml'), cwdFile],
      source: 'cwd',
    })
    expect(findConfig({cwd: dir, env: withoutVariable})).toEqual({
      path: xdgFile,
      searched: [join(dir, 'ptc-mcp.yaml'), join(dir, 'config.yaml'), xdgFile],
      source: 'xdg',
    })
    const projectFile = await write('work/ptc-mcp.yaml', '')
    expect(findConfig({cwd, env: withoutVariable})).toEqual({
      path: projectFile,
      searched: [projectFile],
      source: 'cwd',
    })
  })

  it('defaults $XDG_CONFIG_HOME to ~/.config, and ignores a relative one', async () => {
    const file = await write('home/.config/ptc-mcp/config.yaml', '')
    expect(findConfig({cwd: dir, env}).path).toBe(file)
    expect(findConfig({cwd: dir, env: {...env, XDG_CONFIG_HOME: 'relative'}}).path).toBe(file)
  })

  it('resolves a relative --config against cwd and ~/ against the home directory', async () => {
    const file = await write('home/cfg.yaml', '')
    expect(findConfig({flag: 'home/cfg.yaml', cwd: dir, env}).path).toBe(file)
    expect(findConfig({cwd: '/', env: {...env, PTC_MCP_CONFIG: '~/cfg.yaml'}}).path).toBe(file)
  })

  it('finds nothing without failing, listing where it looked', () => {
    expect(findConfig({cwd: dir, env})).toEqual({
      path: null,
      searched: [
        join(dir, 'ptc-mcp.yaml'),
        join(dir, 'config.yaml'),
        join(dir, 'home', '.config', 'ptc-mcp', 'config.yaml'),
      ],
      source: null,
    })
  })

  it('fails when an explicit --config or PTC_MCP_CONFIG does not exist, rather than looking further', async () => {
    await write('config.yaml', '')
    const missing = join(dir, 'nope.yaml')
    await expectConfigError(
      loadConfig({flag: missing, cwd: dir, env}),
      `Config file not found: ${missing} (from --config)`,
    )
    await expectConfigError(
      loadConfig({cwd: dir, env: {...env, PTC_MCP_CONFIG: missing}}),
      `Config file not found: ${missing} (from PTC_MCP_CONFIG)`,
    )
    expect(() => findConfig({flag: join(dir, 'config.yaml', 'x.yaml'), cwd: dir, env})).toThrow(ConfigError)
  })

  it('names a symbolic link that leads nowhere as such', async () => {
    const link = join(dir, 'linked.yaml')
    await symlink(join(dir, 'gone', 'config.yaml'), link)
    await expectConfigError(
      loadConfig({flag: link, cwd: dir, env}),
      `Config file ${link} (from --config) is a symbolic link to ${join(dir, 'gone', 'config.yaml')}, which does not exist`,
    )
  })
})

describe('loadConfig', () => {
  const defaults = configSchema.parse({})

  it('uses the defaults when there is no file', async () => {
    expect(await loadConfig({cwd: dir, env})).toMatchObject({config: defaults, path: null, warnings: []})
  })

  it.each([
    ['an empty file', ''],
    ['only comments', '# nothing yet\n'],
    ['servers: []', 'servers: []\n'],
    ['empty sections', 'servers:\n  # - name: x\ntools:\nexecution:\n'],
  ])('accepts %s as a config with no servers', async (_, text) => {
    const path = await write('config.yaml', text)
    expect(await loadConfig({cwd: dir, env})).toEqual({
      config: defaults,
      path,
      searched: [join(dir, 'ptc-mcp.yaml'), path],
      source: 'cwd',
      warnings: [],
      secrets: [],
    })
  })

  it('expands ${VAR} before validating, so a URL made of variables is accepted', async () => {
    await write(
      'config.yaml',
      [
        'servers:',
        '  - name: api',
        '    transport: http',
        '    url: "https://${HOST}/mcp"',
        '    headers: {Authorization: "Bearer ${TOKEN}"}',
        '  - name: fin',
        '    command: node',
        '    args: ["${DIR:-/srv}/server.js"]',
        '    env: {API_KEY: "${FIN_KEY}"}',
      ].join('\n'),
    )
    const {config} = await loadConfig({
      cwd: dir,
      env: {
        ...env,
        HOST: 'h.example',
        TOKEN: 't',
        FIN_KEY: 'k',
      },
    })
    expect(config.servers).toEqual([
      {
        name: 'api',
        transport: 'http',
        url: 'https://h.example/mcp',
        headers: {Authorization: 'Bearer t'},
      },
      {
        name: 'fin',
        transport: 'stdio',
        command: 'node',
        args: ['/srv/server.js'],
        env: {API_KEY: 'k'},
      },
    ])
  })

  describe('reports each mistake as one line naming the file, the path and the problem', () => {
    it.each([
      [
        'an unset variable',
        'servers:\n  - name: ok\n    command: x\n  - name: internal-apis\n    transport: http\n    url: https://x.example\n    headers: {Authorization: "Bearer ${TOKEN}"}\n',
        'servers[1].headers.Authorization: environment variable TOKEN is not set (server "internal-apis"); set it, or give a default: ${TOKEN:-...}',
      ],
      [
        'a missing url',
        'servers:\n  - name: remote\n    transport: http\n',
        'servers[0].url: missing (required)',
      ],
      [
        'a url that is not one',
        'servers:\n  - {name: r, transport: sse, url: "ftp://x"}\n',
        'servers[0].url: expected a URL (http:// or https://)',
      ],
      [
        'an unknown transport',
        'servers:\n  - {name: a, command: x}\n  - {name: b, command: x}\n  - {name: c, transport: wat, url: "http://x"}\n',
        'servers[2].transport: unknown transport "wat"; expected stdio, http or sse',
      ],
      [
        'allow and block',
        'tools:\n  allow: [a]\n  block: [b]\n',
        'tools: use either allow or block, not both',
      ],
      [
        'a duplicate server name',
        'servers:\n  - {name: fin, command: x}\n  - {name: fin, command: y}\n',
        'servers[1].name: duplicate server name "fin" (also servers[0])',
      ],
      [
        'names that clash after normalisation',
        'servers:\n  - {name: my-srv, command: x}\n  - {name: my_srv, command: y}\n',
        'servers[1].name: server name "my_srv" clashes with "my-srv" (servers[0]): both become mcp__my_srv__*',
      ],
      [
        'an unknown key',
        'servers:\n  - {name: a, command: x, foo: 1}\n',
        'servers[0].foo: unknown key (expected one of name, transport, command, args, env, cwd, connect_timeout_seconds)',
      ],
      [
        'a misspelt key (without also saying the real one is missing)',
        'servers:\n  - {name: a, comand: x}\n',
        'servers[0].comand: unknown key (did you mean "command"?)',
      ],
      [
        'a key from another tool',
        'servers:\n  - {name: a, type: stdio, command: x}\n',
        'servers[0].type: unknown key (did you mean "transport"?)',
      ],
      ['a zero budget', 'execution:\n  max_tool_calls: 0\n', 'execution.max_tool_calls: must be > 0'],
      ['a negative timeout', 'execution:\n  timeout_seconds: -1\n', 'execution.timeout_seconds: must be > 0'],
      [
        'a result limit over the ceiling',
        'execution:\n  max_tool_result_bytes: 1000000000\n',
        'execution.max_tool_result_bytes: must be <= 67108864',
      ],
      [
        'an unknown sandbox',
        'execution:\n  sandbox: docker\n',
        'execution.sandbox: unknown value "docker"; expected auto, linux, seatbelt or none',
      ],
      [
        'a number where a string belongs',
        'servers:\n  - {name: a, command: x, env: {PORT: 8080}}\n',
        'servers[0].env.PORT: expected a string, got a number (put it in quotes)',
      ],
      [
        'a list where a mapping belongs',
        '- name: a\n',
        '(top level): expected a mapping (key: value lines), got a list',
      ],
    ])('%s', async (_, text, line) => {
      expect(lines(await errorFor(text))).toEqual([line])
    })
  })

  it('reports every mistake at once, in file order, in one error', async () => {
    const message = await errorFor(
      [
        'execution:',
        '  max_tool_calls: 0',
        '  timeout: 5',
        'servers:',
        '  - name: my-srv',
        '    command: node',
        '    env: {KEY: "${FIN_KEY}"}',
        '  - name: my_srv',
        '    transport: http',
        '  - name: three',
        '    transport: wat',
        'tools: {allow: ["*"], block: [""]}',
      ].join('\n'),
    )
    expect(message).toBe(
      [
        `Invalid config ${join(dir, 'config.yaml')}:`,
        '  servers[0].env.KEY: environment variable FIN_KEY is not set (server "my-srv"); set it, or give a default: ${FIN_KEY:-...}',
        '  servers[1].url: missing (required)',
        '  servers[1].name: server name "my_srv" clashes with "my-srv" (servers[0]): both become mcp__my_srv__*',
        '  servers[2].transport: unknown transport "wat"; expected stdio, http or sse',
        '  tools.block[0]: must not be empty',
        '  tools: use either allow or block, not both',
        '  execution.max_tool_calls: must be > 0',
        '  execution.timeout: unknown key (did you mean "timeout_seconds"?)',
      ].join('\n'),
    )
  })

  it('says which keys belong to another transport when transport is missing', async () => {
    expect(lines(await errorFor('servers:\n  - name: remote\n    url: https://x.example\n'))).toEqual([
      'servers[0].command: missing (required)',
      'servers[0].url: unknown key for a stdio server (url is for http or sse servers: is transport set?)',
    ])
  })

  it('reports an unset variable once, not also the invalid value it leaves behind', async () => {
    expect(lines(await errorFor('servers:\n  - {name: r, transport: http, url: "${HOST}/mcp"}\n'))).toEqual([
      'servers[0].url: environment variable HOST is not set (server "r"); set it, or give a default: ${HOST:-...}',
    ])
  })

  it('never puts the value of a variable in a message', async () => {
    const message = await errorFor(
      'servers:\n  - {name: r, transport: http, url: "${HOST}", headers: {X: "${HOST}"}}\n',
      {
        HOST: 'not a url, secret-ish',
      },
    )
    expect(message).toContain('servers[0].url: expected a URL')
    expect(message).not.toContain('secret-ish')
  })

  it('reports invalid YAML with its line and column', async () => {
    const path = await write('config.yaml', 'servers:\n  - name: a\n    command: x\n    command: y\n')
    await expectConfigError(
      loadConfig({cwd: dir, env}),
      `Invalid YAML in ${path}:\n  line 4, column 5: Map keys must be unique\n    3 |     command: x\n    4 |     command: y`,
    )
  })

  it('says so when the config path is a directory', async () => {
    await mkdir(join(dir, 'config.yaml'))
    await expectConfigError(
      loadConfig({cwd: dir, env}),
      `Config path ${join(dir, 'config.yaml')} is a directory, not a file`,
    )
    await expectConfigError(loadConfig({flag: dir, env}), `Config path ${dir} is a directory, not a file`)
  })

  // An unreadable file (root reads anything, so it runs as `nobody` there): test/reliability/bad-config.test.ts.

  describe('skips, with a warning, a server that would launch ptc-mcp itself', () => {
    const ownBin = fileURLToPath(new URL('../../bin/run.js', import.meta.url))
    it.each([
      ['the bin', 'ptc-mcp', ['serve']],
      ['npx', 'npx', ['-y', 'ptc-mcp@latest', 'serve', '--config', 'x.yaml']],
      ['a global install', 'node', ['/usr/lib/node_modules/ptc-mcp/bin/run.js', 'serve']],
      ['this checkout', 'node', [ownBin, 'serve']],
      ['a shell', 'sh', ['-c', 'exec ptc-mcp serve']],
    ])('%s', async (_, command, args) => {
      await write(
        'config.yaml',
        JSON.stringify({
          servers: [
            {name: 'fin', command: 'node', args: ['s.js']},
            {name: 'me', command, args},
          ],
        }),
      )
      const {config, warnings} = await loadConfig({cwd: dir, env})
      expect(config.servers.map((s) => s.name)).toEqual(['fin'])
      expect(warnings).toEqual([
        expect.stringMatching(/^servers\[1\] "me" skipped: it would launch ptc-mcp itself/),
      ])
    })

    it('but keeps other uses of the words', async () => {
      await write(
        'config.yaml',
        JSON.stringify({
          servers: [
            {name: 'a', command: 'ptc-mcp', args: ['list']},
            {name: 'b', command: 'python', args: ['-m', 'http.server', 'serve']},
          ],
        }),
      )
      expect((await loadConfig({cwd: dir, env})).warnings).toEqual([])
    })
  })
})
