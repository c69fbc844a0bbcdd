import {runCommand} from '@oclif/test'
// `list`, `inspect` and `run` in-process, against the fixture over stdio, streamable HTTP and SSE.
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import type {ListResult} from '../../src/commands/list.js'
import type {ToolDescription} from '../../src/downstream/tools/inspect.js'
import type {StructuredOutcome} from '../../src/execution/outcome/structured-outcome.js'

import {fixtureCommand, type HttpFixture, startHttpFixture} from '../fixtures/start-fixture.js'
import {ROOT, withExitCode} from '../helpers/command-exit.js'
import {NO_UNLISTED_ASKING, withNoConfig} from '../helpers/serve.js'

/** `ptc-mcp <argv>` in-process, with the exit code it set. */
const cli = async <T>(argv: string[]) => withExitCode(await runCommand<T>(argv, {root: ROOT}))

let dir: string
let http: HttpFixture
let sse: HttpFixture

const stdio = fixtureCommand()
const servers = () => [
  {name: 'local', command: stdio.command, args: stdio.args},
  {name: 'web-http', transport: 'http', url: http.url},
  {name: 'web-sse', transport: 'sse', url: sse.url},
]

function writeConfig(name: string, config: Record<string, unknown>): string {
  const path = join(dir, name)
  // Its runs have no terminal to ask on: calls no rule covers run unasked (approvals are run-approval's).
  writeFileSync(path, stringify({permissions: NO_UNLISTED_ASKING, ...config}))
  return path
}

let cacheHome: string | undefined

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-cli-test-'))
  // A cache of its own: another suite's calls to the same fixture would show as observed_result.
  cacheHome = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = join(dir, 'cache')
  ;[http, sse] = await Promise.all([
    startHttpFixture({transport: 'http'}),
    startHttpFixture({transport: 'sse'}),
  ])
}, 60_000)

afterAll(async () => {
  if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME
  else process.env.XDG_CACHE_HOME = cacheHome
  await Promise.all([http?.stop(), sse?.stop()])
  rmSync(dir, {force: true, recursive: true})
})

describe('ptc-mcp list', () => {
  it('--json lists the sorted namespaced tools of a stdio, an HTTP and an SSE server', async () => {
    const run = await cli<ListResult>([
      'list',
      '--config',
      writeConfig('all.yaml', {servers: servers()}),
      '--json',
    ])
    expect(run.error).toBeUndefined()
    const names = (JSON.parse(run.stdout) as ListResult).tools.map((t) => t.name)
    expect(names).toEqual([...names].sort())
    for (const server of ['local', 'web_http', 'web_sse']) expect(names).toContain(`mcp__${server}__add`)
    expect(run.result?.servers.map((s) => [s.name, s.connected])).toEqual([
      ['local', true],
      ['web-http', true],
      ['web-sse', true],
    ])
  })

  it('applies allow and block globs', async () => {
    const allowed = await cli<ListResult>([
      'list',
      '--config',
      writeConfig('allow.yaml', {
        servers: servers(),
        tools: {allow: ['mcp__web_*__add', 'mcp__local__echo']},
      }),
      '--json',
    ])
    expect(allowed.result?.tools.map((t) => t.name)).toEqual([
      'mcp__local__echo',
      'mcp__web_http__add',
      'mcp__web_sse__add',
    ])
    const blocked = await cli<ListResult>([
      'list',
      '--config',
      writeConfig('block.yaml', {servers: servers().slice(0, 1), tools: {block: ['mcp__local__*e*']}}),
      '--json',
    ])
    const names = blocked.result?.tools.map((t) => t.name) ?? []
    expect(names).toContain('mcp__local__add')
    expect(names.filter((n) => n.slice('mcp__local__'.length).includes('e'))).toEqual([])
  })

  it('with no config anywhere says where it looked and lists nothing, exit 0', async () => {
    await withNoConfig(dir, async (empty) => {
      const run = await cli<ListResult>(['list'])
      expect(run.error).toBeUndefined()
      expect(run.exitCode).toBeUndefined()
      expect(run.result).toMatchObject({config: null, tools: [], servers: []})
      expect(run.stderr).toContain(
        `looked in: ${join(empty, 'ptc-mcp.yaml')}, ${join(empty, 'config.yaml')}, ${join(empty, 'xdg', 'ptc-mcp', 'config.yaml')}`,
      )
    })
  })

  it('a config mistake is one message naming file, path and problem, exit code 2', async () => {
    const path = writeConfig('bad.yaml', {
      servers: [{name: 'x', transport: 'http'}],
      execution: {max_tool_calls: 0},
    })
    const run = await cli<ListResult>(['list', '--config', path])
    expect(run.error?.oclif?.exit).toBe(2)
    expect(run.error?.message).toContain(`Invalid config ${path}:`)
    expect(run.error?.message).toContain('servers[0].url: missing (required)')
    expect(run.error?.message).toContain('execution.max_tool_calls: must be > 0')
  })
})

describe('ptc-mcp inspect', () => {
  it('shows the signature and the output schema, or null with a note', async () => {
    const config = writeConfig('local.yaml', {servers: servers().slice(0, 1)})
    const structured = await cli<ToolDescription>([
      'inspect',
      'mcp__local__structured',
      '--config',
      config,
      '--json',
    ])
    expect(structured.result?.signature).toBe(
      'await mcp__local__structured(*, ticker: str, limit: int = 4, fields: list[Literal[\'revenue\', \'profit\']] | None = None, options: {"currency": str} | None = None) -> {"ticker": str, "currency": str, "rows": list[{"period": int, "revenue": float, "profit": float}]}',
    )
    expect(structured.result?.outputSchema).toMatchObject({type: 'object'})
    const echo = await cli<ToolDescription>(['inspect', 'mcp__local__echo', '--config', config])
    expect(echo.result).toMatchObject({outputSchema: null, note: expect.stringMatching(/runtime/)})
    expect(echo.stdout).toContain('await mcp__local__echo(*, text: str, upper: bool = False) -> Any')
    const unknown = await cli<ToolDescription>(['inspect', 'mcp__local__ech', '--config', config])
    expect(unknown.error?.message).toContain('mcp__local__echo')
    expect(unknown.error?.oclif?.exit).toBe(1)
  })
})

describe('ptc-mcp run', () => {
  it('prints the text of execute_program; --json prints the structured content; exit 1 on failure', async () => {
    const config = writeConfig('run.yaml', {servers: servers().slice(0, 1)})
    const ok = join(dir, 'ok.py')
    writeFileSync(ok, 'r = await mcp__local__add(a=1, b=2)\nprint(r["sum"])')
    const text = await cli<StructuredOutcome>(['run', ok, '--config', config])
    expect(text.exitCode).toBeUndefined()
    expect(text.stdout).toMatch(/^\[Script executed successfully\]\n3\n\[tool calls: 1; \d+\.\ds\]\n$/)

    const failing = join(dir, 'fail.py')
    writeFileSync(failing, 'print("a")\n1/0')
    const json = await cli<StructuredOutcome>(['run', failing, '--config', config, '--json'])
    expect(json.exitCode).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      output: 'a\n',
      error: expect.stringContaining('ZeroDivisionError'),
    })
  })

  it('connects only the servers the program names, plus --server; an unknown --server is refused', async () => {
    const marker = join(dir, 'started')
    // A server that leaves a mark once started (and never speaks MCP).
    const marking = {
      name: 'marking',
      command: 'sh',
      args: ['-c', `touch ${marker}; sleep 30`],
      connect_timeout_seconds: 1,
    }
    const config = writeConfig('lazy.yaml', {servers: [...servers().slice(0, 1), marking]})
    const program = join(dir, 'lazy.py')
    writeFileSync(program, 'print((await mcp__local__add(a=1, b=2))["sum"])')
    const named = await cli<StructuredOutcome>(['run', program, '--config', config])
    expect(named.stdout).toMatch(/^\[Script executed successfully\]\n3\n/)
    expect(existsSync(marker)).toBe(false)

    writeFileSync(program, 'print(1)')
    await cli<StructuredOutcome>(['run', program, '--config', config, '--server', 'marking'])
    expect(existsSync(marker)).toBe(true)

    const unknown = await cli<StructuredOutcome>(['run', program, '--config', config, '--server', 'nope'])
    expect(unknown.error?.message).toContain('--server nope: no such server in the config')
  })

  it('refuses with exit code 3 when the configured sandbox is not available here', async () => {
    const config = writeConfig('seatbelt.yaml', {
      execution: {sandbox: process.platform === 'darwin' ? 'linux' : 'seatbelt'},
    })
    const program = join(dir, 'p.py')
    writeFileSync(program, 'print(1)')
    const run = await cli<StructuredOutcome>(['run', program, '--config', config])
    expect(run.error?.oclif?.exit).toBe(3)
    expect(run.error?.message).toMatch(/not available|only on/i)
  })
})
