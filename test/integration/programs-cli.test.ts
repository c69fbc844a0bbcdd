// @tier integration
/**
 * `ptc-mcp programs` (SPEC §17, §9) with the built CLI: a program saved from a real serve session
 * (execute_program save_as, programs.save: allow) replays with no server configured and fails once
 * its output changes; `--live` names the drift of a fixture whose result changed shape
 * (`assignee` → `assignees`) and exits 1; list, show, save and rm with --json.
 */
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {BIN, spawnCli} from '../helpers/serve.js'

const PROGRAM = [
  'r = await mcp__fx__list_issues()',
  'logins = [i["assignee"]["login"] for i in r["items"]]',
  'print(", ".join(logins))',
  'emit({"issues": len(r["items"])})',
  '',
].join('\n')

describe('ptc-mcp programs (SPEC §17)', () => {
  let root: string
  let project: string
  let env: Record<string, string>
  const config = (name: string, servers: unknown[]) => {
    const path = join(root, name)
    writeFileSync(path, stringify({servers, permissions: {ask_unlisted: false}, programs: {save: 'allow'}}))
    return path
  }
  const fixture = (shape: string) => ({
    name: 'fx',
    ...fixtureCommand(['--name', 'fx']),
    env: {PTC_FIXTURE_ASSIGNEES: shape},
  })
  const cli = (args: string[]) => spawnCli(args, {cwd: project, env, timeoutMs: 90_000}).done
  const programPath = () => join(project, '.ptc-mcp', 'programs', 'assignees.py')

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ptc-programs-cli-'))
    project = join(root, 'project')
    mkdirSync(project)
    env = {XDG_CONFIG_HOME: join(root, 'xdg'), PTC_MCP_LOG_LEVEL: 'warn'}
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--config', config('serve.yaml', [fixture('object')])],
      cwd: project,
      env: {...(process.env as Record<string, string>), ...env},
      stderr: 'pipe',
    })
    const client = new Client({name: 'programs-cli-test', version: '1.0.0'})
    await client.connect(transport)
    try {
      const result = (await client.callTool(
        {
          name: 'execute_program',
          arguments: {
            code: PROGRAM,
            save_as: 'assignees',
            save_to: 'project',
            description: 'Who has issues.',
          },
        },
        {timeout: 120_000},
      )) as {structuredContent?: Record<string, unknown>}
      expect(result.structuredContent).toMatchObject({
        ok: true,
        output: 'user1, user2\n',
        saved: expect.stringMatching(/^saved as assignees/),
      })
    } finally {
      await client.close()
    }
  }, 120_000)

  afterAll(() => {
    rmSync(root, {recursive: true, force: true})
  })

  it('replays a saved program with no server configured, and fails once its output differs', async () => {
    const none = config('none.yaml', [])
    const passed = await cli(['programs', 'test', 'assignees', '--config', none])
    expect(passed.stdout).toContain('pass assignees (replay)')
    expect(passed.code).toBe(0)

    const original = readFileSync(programPath(), 'utf8')
    writeFileSync(programPath(), original.replace('", ".join(logins)', '" / ".join(logins)'))
    try {
      const failed = await cli(['programs', 'test', 'assignees', '--config', none, '--json'])
      expect(failed.code).toBe(1)
      const report = JSON.parse(failed.stdout)
      expect(report.ok).toBe(false)
      expect(report.results[0].problems).toEqual([
        'output differs at line 1: recorded "user1, user2", now "user1 / user2"',
      ])
    } finally {
      writeFileSync(programPath(), original)
    }
  }, 120_000)

  it('--live passes on the same shape and names every drift of a changed one, exit 1', async () => {
    const same = await cli([
      'programs',
      'test',
      'assignees',
      '--live',
      '--config',
      config('same.yaml', [fixture('object')]),
    ])
    expect(same.stdout).toContain('pass assignees (live)')
    expect(same.code).toBe(0)

    const changed = await cli([
      'programs',
      'test',
      'assignees',
      '--live',
      '--config',
      config('list.yaml', [fixture('list')]),
    ])
    expect(changed.code).toBe(1)
    expect(changed.stdout).toContain(
      'mcp__fx__list_issues: items[].assignee (object) is now items[].assignees (list)',
    )
  }, 120_000)

  it('doctor reports a name clash and a program whose tool is gone', async () => {
    const user = join(root, 'xdg', 'ptc-mcp', 'programs')
    mkdirSync(user, {recursive: true})
    writeFileSync(join(user, 'assignees.py'), 'print(1)\n')
    writeFileSync(join(user, 'stale.py'), 'await mcp__fx__list_tickets()\n')
    try {
      const run = await cli(['doctor', '--json', '--config', config('doctor.yaml', [fixture('object')])])
      const check = JSON.parse(run.stdout).checks.find((c: {id: string}) => c.id === 'programs')
      expect(check.status).toBe('warn')
      expect(check.detail).toContain(`assignees: ${join(user, 'assignees.py')} is hidden by ${programPath()}`)
      expect(check.detail).toContain('stale calls mcp__fx__list_tickets, which no server offers')
    } finally {
      rmSync(join(user, 'assignees.py'))
      rmSync(join(user, 'stale.py'))
    }
  }, 120_000)

  it('lists, shows, saves and removes programs, with --json', async () => {
    const file = join(root, 'greet.py')
    writeFileSync(file, 'async def main(*, who: str, times: int = 1):\n    return [f"hi {who}"] * times\n')
    const saved = await cli(['programs', 'save', 'greet', file, '--description', 'Greets.', '--json'])
    expect(saved.code).toBe(0)
    expect(JSON.parse(saved.stdout).path).toBe(join(root, 'xdg', 'ptc-mcp', 'programs', 'greet.py'))
    const again = await cli(['programs', 'save', 'greet', file])
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/exists.*\n.*--replace/s)

    const listed = JSON.parse((await cli(['programs', 'list', '--json'])).stdout)
    expect(listed.programs).toEqual([
      expect.objectContaining({
        name: 'assignees',
        scope: 'project',
        recorded: true,
        tools: ['mcp__fx__list_issues'],
      }),
      expect.objectContaining({
        name: 'greet',
        scope: 'user',
        description: 'Greets.',
        parameters: ['who', 'times'],
      }),
    ])
    const shown = JSON.parse((await cli(['programs', 'show', 'greet', '--json'])).stdout)
    expect(shown.inputSchema).toMatchObject({properties: {who: {type: 'string'}}, required: ['who']})

    const missing = await cli(['programs', 'show', 'gret'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('greet')

    expect((await cli(['programs', 'rm', 'greet'])).code).toBe(0)
    const after = JSON.parse((await cli(['programs', 'list', '--json'])).stdout)
    expect(after.programs.map((p: {name: string}) => p.name)).toEqual(['assignees'])
  }, 120_000)
})
