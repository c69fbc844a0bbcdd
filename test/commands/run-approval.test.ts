// @tier integration
// `ptc-mcp run` and the calls that need approval (SPEC §12): asked on a real pseudo-terminal
// (Python's pty module drives the built binary), approved by --yes, denied without a terminal.
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type Finished, spawnCollect} from '../helpers/processes.js'
import {runOnTerminal} from '../helpers/pty.js'
import {BIN} from '../helpers/serve.js'

function runProcess(command: string, args: string[], env: Record<string, string>): Promise<Finished> {
  return spawnCollect(command, args, {env: {...(process.env as Record<string, string>), ...env}}).done
}

let dir: string
let configPath: string
let counter: string

const PROGRAM = [
  'for i in range(3):',
  '    try:',
  '        print(await mcp__fx__delete_item(id=f"p{i}"))',
  '    except ToolError as e:',
  '        print("caught:", e)',
].join('\n')

const deletes = () =>
  existsSync(counter)
    ? readFileSync(counter, 'utf8')
        .split('\n')
        .filter((name) => name === 'delete_item').length
    : 0

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-run-approval-'))
  counter = join(dir, 'fx.calls')
  const {command, args} = fixtureCommand(['--counter-file', counter])
  configPath = join(dir, 'config.yaml')
  writeFileSync(
    configPath,
    stringify({
      servers: [{name: 'fx', command, args}],
      // The machine's own Claude Code settings must not change what this test sees.
      permissions: {claude_code: false, approval_timeout_seconds: 60},
      execution: {timeout_seconds: 30},
    }),
  )
  writeFileSync(join(dir, 'program.py'), PROGRAM)
})

afterAll(() => {
  rmSync(dir, {recursive: true, force: true})
})

const runArgs = (...extra: string[]) => [
  BIN,
  'run',
  '--config',
  configPath,
  join(dir, 'program.py'),
  ...extra,
]

describe('ptc-mcp run and approvals', () => {
  it('asks on a terminal: before the run e asks at each call; then y allows one call, n denies one, a allows the rest of the program', async () => {
    const before = deletes()
    const run = await runOnTerminal([process.execPath, ...runArgs()], {answers: ['e', 'y', 'n', 'a']}).done
    expect(run.code, run.stdout).toBe(0)
    expect(run.stdout).toContain('- mcp__fx__delete_item 3 times, e.g. mcp__fx__delete_item(id=f"p{i}")')
    expect(run.stdout.match(/Allow these calls\? \[y\] yes, \[e\] ask at each call/g)).toHaveLength(1)
    expect(run.stdout.match(/Allow it\?/g)).toHaveLength(3)
    expect(run.stdout).toContain(
      'A program run by ptc-mcp wants to call mcp__fx__delete_item (tool "delete_item" of server "fx")',
    )
    expect(run.stdout).toContain('Arguments: {"id":"p0"}')
    expect(run.stdout).toContain('deleted p0')
    expect(run.stdout).toContain('caught: denied: the user denied this call to mcp__fx__delete_item')
    expect(run.stdout).toContain('deleted p2')
    expect(deletes() - before).toBe(2)
  }, 150_000)

  it('"y" before the run allows the three calls it shows: asked once', async () => {
    const before = deletes()
    const run = await runOnTerminal([process.execPath, ...runArgs()], {answers: ['y']}).done
    expect(run.code, run.stdout).toBe(0)
    expect(run.stdout.match(/Allow (it|these calls)\?/g)).toHaveLength(1)
    expect(run.stdout).toMatch(/deleted p0[\s\S]*deleted p1[\s\S]*deleted p2/)
    expect(deletes() - before).toBe(3)
  }, 150_000)

  it('list says which tools ask the user first', async () => {
    const list = await runProcess(process.execPath, [BIN, 'list', '--config', configPath, '--json'], {})
    expect(list.code, list.stderr).toBe(0)
    const {tools} = JSON.parse(list.stdout) as {tools: Array<{name: string; needs_approval?: string}>}
    const note = (name: string) => tools.find((tool) => tool.name === name)?.needs_approval
    // No allow rule covers it (the shipped default asks, as Claude Code does); read_item declares readOnlyHint.
    expect(note('mcp__fx__delete_item')).toContain('no allow rule covers the tool')
    expect(note('mcp__fx__delete_item')).toContain('(permissions.ask_unlisted)')
    expect(note('mcp__fx__read_item')).toBeUndefined()
    const table = await runProcess(process.execPath, [BIN, 'list', '--config', configPath], {})
    expect(table.stdout).toMatch(/mcp__fx__delete_item +fx +\[asks\] Pretends to delete/)
  }, 120_000)

  it("list names the Claude Code deny rule that hides a tool (HOME's settings)", async () => {
    const home = join(dir, 'home')
    mkdirSync(join(home, '.claude'), {recursive: true})
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({permissions: {deny: ['mcp__fx__delete_item'], allow: ['mcp__*']}}),
    )
    const claudeConfig = join(dir, 'claude.yaml')
    writeFileSync(claudeConfig, stringify({servers: [{name: 'fx', ...fixtureCommand()}]}))
    const env = {HOME: home, PTC_MCP_CLAUDE_MANAGED_DIR: join(dir, 'managed')}
    const list = await runProcess(process.execPath, [BIN, 'list', '--config', claudeConfig, '--json'], env)
    expect(list.code, list.stderr).toBe(0)
    const result = JSON.parse(list.stdout) as {
      tools: Array<{name: string}>
      hidden: Array<{name: string; reason: string}>
    }
    expect(result.tools.map((tool) => tool.name)).not.toContain('mcp__fx__delete_item')
    expect(result.hidden).toEqual([
      {
        name: 'mcp__fx__delete_item',
        server: 'fx',
        reason: `hidden by Claude Code's deny rule "mcp__fx__delete_item" (${join(home, '.claude', 'settings.json')})`,
      },
    ])
    // inspect names the rule, and its fix the settings file to change.
    const inspect = await runProcess(
      process.execPath,
      [BIN, 'inspect', 'mcp__fx__delete_item', '--config', claudeConfig],
      env,
    )
    expect(inspect.code).toBe(1)
    // oclif wraps the message: read it as one line.
    const said = inspect.stderr.replaceAll(/\s*\n\s*›?\s*/g, ' ')
    expect(said).toContain(`hidden by Claude Code's deny rule "mcp__fx__delete_item"`)
    expect(said).toContain(
      `To make it callable, remove the deny rule "mcp__fx__delete_item" from ${join(home, '.claude', 'settings.json')} (permissions.deny).`,
    )
    // A rule Claude Code skips is reported at the default log level, with its file.
    const table = await runProcess(process.execPath, [BIN, 'list', '--config', claudeConfig], env)
    expect(table.stderr).toContain(
      `Warning: Claude Code skips the rule "mcp__*" (permissions.allow in ${join(home, '.claude', 'settings.json')}), so ptc-mcp does too:`,
    )
  }, 120_000)

  it('--yes approves every call without asking, and the trace says so', async () => {
    const before = deletes()
    const run = await runProcess(process.execPath, [...runArgs('--yes', '--json')], {})
    expect(run.code, run.stderr).toBe(0)
    const outcome = JSON.parse(run.stdout) as {
      output: string
      calls: Array<{approval?: string}>
    }
    expect(outcome.output).toContain('deleted p2')
    expect(outcome.calls.map((call) => call.approval)).toEqual(['approved', 'approved', 'approved'])
    expect(deletes() - before).toBe(3)
  }, 120_000)

  it('without a terminal and without --yes, the calls are denied, saying how to allow them', async () => {
    const before = deletes()
    const run = await runProcess(process.execPath, runArgs(), {})
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain(
      'caught: denied: mcp__fx__delete_item needs the user\'s approval (no allow rule covers the tool and it does not declare itself read-only (permissions.ask_unlisted)), but there is no terminal to ask on (`ptc-mcp run --yes` approves every call); to run it without asking, add "mcp__fx__delete_item" to permissions.allow in ptc-mcp\'s config',
    )
    // permissions.claude_code is off here: Claude Code's settings would not allow it.
    expect(run.stdout).not.toContain('.claude/settings.json')
    expect(run.stdout.match(/caught: denied/g)).toHaveLength(3)
    expect(deletes()).toBe(before)
  }, 120_000)
})
