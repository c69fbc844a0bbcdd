// @tier integration
// serve with a config that is partly wrong, or found by discovery next to another application's
// config.yaml: the servers that can run, run (SPEC §3).
import {spawn} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {execute, listCallable} from '../helpers/serve-session.js'
import {BIN, prepareServe, type ServeSetup} from '../helpers/serve.js'

const FINANCE_SERVER = resolve(import.meta.dirname, '../../examples/finance-server.js')
const finance = {name: 'finance', command: process.execPath, args: [FINANCE_SERVER]}
const FINANCE_TOOLS = [
  'mcp__finance__get_income_statements',
  'mcp__finance__get_transactions',
  'mcp__finance__list_companies',
]
const UNSET = 'PTC_TEST_NEVER_SET_VARIABLE'

let setup: ServeSetup | undefined
let serve: RawServe | undefined

afterEach(async () => {
  if (serve) {
    serve.child.stdin.end()
    await serve.exited
  }
  setup?.cleanup()
  serve = undefined
  setup = undefined
})

describe('serve with a broken server entry', () => {
  it("lists and calls the other servers' tools, and names the broken one with the reason", async () => {
    setup = prepareServe({
      servers: [
        {name: 'broken', command: process.execPath, args: [FINANCE_SERVER], env: {KEY: `\${${UNSET}}`}},
        finance,
        {name: 'bad-url', transport: 'http', url: 'not a url'},
      ],
      execution: {warm_pool: 0},
    })
    delete setup.env[UNSET]
    serve = await startRawServe(setup)
    const listing = await listCallable(serve, ['broken', 'finance', 'bad-url'])
    expect(listing.names).toEqual(FINANCE_TOOLS)
    expect(listing.unavailable.broken).toBe(
      `invalid config entry (servers[0].env.KEY: environment variable ${UNSET} is not set (server "broken"); ` +
        `set it, or give a default: \${${UNSET}:-...}); fix it in ${setup.configPath}`,
    )
    expect(listing.unavailable['bad-url']).toContain('servers[2].url: expected a URL (http:// or https://)')

    const run = await execute(
      serve,
      [
        'rows = await mcp__finance__list_companies()',
        'print(len(rows["companies"]))',
        'try:',
        '    await mcp__broken__list_companies()',
        'except ToolError as error:',
        '    print("ToolError:", error)',
        'status = {s["name"]: s["connected"] for s in await server_status()}',
        'print(status)',
      ].join('\n'),
    )
    expect(run.structured.ok, run.text).toBe(true)
    const lines = run.output.trim().split('\n')
    expect(lines[0]).toBe('3')
    expect(lines[1]).toMatch(/^ToolError: server 'broken' is not connected \(invalid config entry/)
    expect(lines[2]).toBe("{'finance': True, 'broken': False, 'bad-url': False}")
    expect(serve.stderr()).toContain('server broken is unavailable: invalid config entry')
  })
})

/** A project directory with someone else's config.yaml, and a home with the user's ptc-mcp config. */
function project(): {cwd: string; env: Record<string, string>} {
  setup = prepareServe({})
  const root = resolve(setup.configPath, '..')
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(join(home, '.config', 'ptc-mcp'), {recursive: true})
  writeFileSync(join(cwd, 'config.yaml'), 'database:\n  host: localhost\nport: 5432\n')
  writeFileSync(join(home, '.config', 'ptc-mcp', 'config.yaml'), stringify({servers: [finance]}))
  const env: Record<string, string> = {...setup.env, HOME: home}
  delete env.PTC_MCP_CONFIG
  delete env.XDG_CONFIG_HOME
  return {cwd, env}
}

describe("next to another application's config.yaml", () => {
  it("serve uses the user's config", async () => {
    const {cwd, env} = project()
    serve = await startRawServe({...setup!, args: [BIN, 'serve'], env, cwd})
    expect((await listCallable(serve, ['finance'])).names).toEqual(FINANCE_TOOLS)
  })

  it("list uses the user's config", async () => {
    const {cwd, env} = project()
    const child = spawn(process.execPath, [BIN, 'list', '--json'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    const code = await new Promise<null | number>((done) => {
      child.once('close', done)
    })
    expect(code).toBe(0)
    const listing = JSON.parse(stdout) as {config: string; tools: Array<{name: string}>}
    expect(listing.config).toBe(join(env.HOME!, '.config', 'ptc-mcp', 'config.yaml'))
    expect(listing.tools.map((t) => t.name)).toEqual(FINANCE_TOOLS)
  })
})
