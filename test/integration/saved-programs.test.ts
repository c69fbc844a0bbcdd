// @tier integration
/**
 * Saved programs (SPEC §17) through the built `serve` and a real SDK client: a program file in the
 * project's .ptc-mcp/programs/ is a tool with the schema of its main(), runs as execute_program
 * runs a program, refuses bad arguments before any call; a file added while serve runs is
 * announced with tools/list_changed; execute_program's save_as saves only a run that worked, only
 * with the user's yes, with a recording of its calls.
 */
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {BIN} from '../helpers/serve.js'

const COUNT_ITEMS = `"""Labels n items and counts the issues.

Longer text for the tool's description."""


async def main(*, n: int, prefix: str = "item"):
    issues = await mcp__fx__list_issues()
    print(f"{len(issues['items'])} issues")
    return [f"{prefix}{i}" for i in range(n)]
`

interface CallResult {
  content: {type: string; text?: string}[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

describe('saved programs in serve (SPEC §17)', () => {
  let root: string
  let project: string
  let userPrograms: string
  let counter: string
  let client: Client
  let answer: (params: unknown) => {action: string; content?: Record<string, unknown>} = () => ({
    action: 'decline',
  })
  const asked: unknown[] = []
  let listChanged = 0

  const calls = () => (existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter(Boolean) : [])
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({name, arguments: args}, {timeout: 120_000})) as CallResult

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ptc-saved-'))
    project = join(root, 'project')
    mkdirSync(join(project, '.ptc-mcp', 'programs'), {recursive: true})
    writeFileSync(join(project, '.ptc-mcp', 'programs', 'count_items.py'), COUNT_ITEMS)
    userPrograms = join(root, 'xdg', 'ptc-mcp', 'programs')
    counter = join(root, 'calls.txt')
    const fixture = fixtureCommand(['--name', 'fx', '--counter-file', counter])
    writeFileSync(
      join(root, 'config.yaml'),
      stringify({
        servers: [{name: 'fx', ...fixture, env: {PTC_FIXTURE_ASSIGNEES: 'object'}}],
        permissions: {ask_unlisted: false},
        execution: {timeout_seconds: 30},
      }),
    )
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--config', join(root, 'config.yaml')],
      cwd: project,
      env: {
        ...(process.env as Record<string, string>),
        XDG_CONFIG_HOME: join(root, 'xdg'),
        HOME: root,
        PTC_MCP_LOG_LEVEL: 'warn',
        PTC_MCP_CLAUDE_MANAGED_DIR: join(root, 'managed'),
      },
      stderr: 'pipe',
    })
    client = new Client(
      {name: 'saved-programs-test', version: '1.0.0'},
      {capabilities: {elicitation: {form: {}}}},
    )
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params)
      return answer(request.params) as never
    })
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      listChanged++
    })
    await client.connect(transport)
    const deadline = Date.now() + 60_000
    for (;;) {
      const names = JSON.stringify(await call('list_callable_tools', {}))
      const tools = (await client.listTools()).tools.map((tool) => tool.name)
      if (names.includes('mcp__fx__list_issues') && tools.includes('count_items')) break
      if (Date.now() > deadline) throw new Error(`not ready: ${names} ${tools.join(',')}`)
      await new Promise((resolve) => {
        setTimeout(resolve, 200)
      })
    }
  }, 90_000)

  afterAll(async () => {
    await client?.close()
    rmSync(root, {recursive: true, force: true})
  })

  it('lists a program with the schema of its main() and its docstring, read-only as its tool is', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'count_items')!
    expect(tool.description).toMatch(/^Labels n items and counts the issues\.\n\nLonger text/)
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      properties: {n: {type: 'integer'}, prefix: {type: 'string', default: 'item'}},
      required: ['n'],
    })
    expect(tool.annotations?.readOnlyHint).toBe(true)
    // Answered as execute_program is: the same structure, passed inline by Claude Code.
    expect(tool.outputSchema?.properties).toHaveProperty('output')
    expect(tool._meta?.['anthropic/maxResultSizeChars']).toEqual(expect.any(Number))
  })

  it('names the saved programs in list_callable_tools, apart from the downstream tools', async () => {
    const result = await call('list_callable_tools', {})
    expect(JSON.parse(result.content[0]!.text!)).not.toContain('count_items')
    expect(result.content[1]?.text).toMatch(
      /^SAVED PROGRAMS \(each also a tool of this server; in a program: await run_program\("name", \*\*arguments\)\): count_items\(n, prefix\): Labels n items and counts the issues\.$/,
    )
  })

  it('runs it with the arguments: main() is awaited and its return value emitted', async () => {
    const before = calls().length
    const result = await call('count_items', {n: 3})
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({
      ok: true,
      output: '2 issues\n',
      result: ['item0', 'item1', 'item2'],
    })
    expect(calls().length).toBe(before + 1)
  })

  it('refuses arguments that do not fit, naming the argument, before any call', async () => {
    const before = calls().length
    const result = await call('count_items', {n: 'x'})
    expect(result.isError).toBe(true)
    expect(result.content[0]?.text).toMatch(/argument 'n': must be integer/)
    expect(calls().length).toBe(before)
  })

  it('announces a program added while it runs with tools/list_changed', async () => {
    const seen = listChanged
    writeFileSync(
      join(project, '.ptc-mcp', 'programs', 'greet.py'),
      '"""Greets someone."""\nasync def main(*, who: str):\n    return f"hello {who}"\n',
    )
    const deadline = Date.now() + 20_000
    let tools: string[] = []
    while (Date.now() < deadline) {
      tools = (await client.listTools()).tools.map((tool) => tool.name)
      if (listChanged > seen && tools.includes('greet')) break
      await new Promise((resolve) => {
        setTimeout(resolve, 100)
      })
    }
    expect(listChanged).toBeGreaterThan(seen)
    expect(tools).toContain('greet')
    const result = await call('greet', {who: 'ada'})
    expect(result.structuredContent?.result).toBe('hello ada')
  })

  it('runs a saved program from a program with run_program(), its arguments checked first', async () => {
    const before = calls().length
    const code = [
      'labels = await run_program("count_items", n=2, prefix="x")',
      'print(labels)',
      'try:',
      '    await run_program("count_items", n="two")',
      'except ToolError as e:',
      '    print(e.kind, e.message)',
    ].join('\n')
    const result = await call('execute_program', {code})
    expect(result.structuredContent?.output).toBe(
      "2 issues\n['x0', 'x1']\ninvalid_arguments run_program(\"count_items\"): argument 'n': must be integer\n",
    )
    expect(calls().length).toBe(before + 1)
  })

  it('saves a program that worked when the user accepts, with a recording of its calls', async () => {
    answer = () => ({action: 'accept', content: {save: true}})
    asked.length = 0
    const code = 'r = await mcp__fx__list_issues()\nprint([i["assignee"]["login"] for i in r["items"]])\n'
    const result = await call('execute_program', {code, save_as: 'assignees', description: 'Who has issues.'})
    expect(result.isError).toBeFalsy()
    expect(asked).toHaveLength(1)
    expect(String(result.structuredContent?.saved)).toMatch(/^saved as assignees: /)
    const saved = readFileSync(join(userPrograms, 'assignees.py'), 'utf8')
    expect(saved).toBe(`"""Who has issues."""\n\n${code}`)
    const recording = JSON.parse(readFileSync(join(userPrograms, 'assignees.calls.json'), 'utf8'))
    expect(recording.calls).toEqual([
      {
        tool: 'mcp__fx__list_issues',
        args: {},
        result: {
          items: [
            {id: 1, assignee: {login: 'user1'}},
            {id: 2, assignee: {login: 'user2'}},
          ],
        },
      },
    ])
    expect(recording.output).toBe("['user1', 'user2']\n")
  })

  it('never overwrites a saved program without replace: true', async () => {
    asked.length = 0
    const result = await call('execute_program', {code: 'print(2)', save_as: 'assignees'})
    expect(String(result.structuredContent?.saved)).toMatch(/exists.*replace: true/)
    expect(asked).toHaveLength(0)
    expect(readFileSync(join(userPrograms, 'assignees.py'), 'utf8')).toContain('mcp__fx__list_issues')
  })

  it('saves nothing for a failed program, and nothing when the user declines', async () => {
    answer = () => ({action: 'accept', content: {save: true}})
    asked.length = 0
    const failed = await call('execute_program', {code: 'raise ValueError("no")', save_as: 'broken'})
    expect(failed.isError).toBe(true)
    expect(failed.content.map((item) => item.text).join('\n')).toMatch(
      /not saved as broken: the program failed/,
    )
    expect(asked).toHaveLength(0)
    answer = () => ({action: 'decline'})
    const declined = await call('execute_program', {code: 'print(1)', save_as: 'declined'})
    expect(asked).toHaveLength(1)
    expect(declined.structuredContent?.saved).toBe('not saved as declined: the user declined')
    expect(existsSync(join(userPrograms, 'broken.py'))).toBe(false)
    expect(existsSync(join(userPrograms, 'declined.py'))).toBe(false)
  })
})

describe('save_as in the 2026-07-28 protocol (SPEC §17, §12): the question is an input request', () => {
  it('asks through input_required and saves once the user accepts', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-saved-modern-'))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--config', join(root, 'none.yaml')],
      cwd: root,
      env: {
        ...(process.env as Record<string, string>),
        XDG_CONFIG_HOME: join(root, 'xdg'),
        PTC_MCP_LOG_LEVEL: 'warn',
        PTC_MCP_CLAUDE_MANAGED_DIR: join(root, 'managed'),
      },
    })
    writeFileSync(join(root, 'none.yaml'), 'servers: []\n')
    const client = new Client(
      {name: 'saved-modern', version: '1.0.0'},
      {capabilities: {elicitation: {form: {}}}, versionNegotiation: {mode: 'auto'}},
    )
    const asked: unknown[] = []
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params)
      return {action: 'accept', content: {save: true}}
    })
    try {
      await client.connect(transport)
      const result = (await client.callTool(
        {name: 'execute_program', arguments: {code: 'print(6 * 7)', save_as: 'answer', save_to: 'project'}},
        {timeout: 120_000},
      )) as CallResult
      expect(result.structuredContent).toMatchObject({ok: true, output: '42\n'})
      expect(String(result.structuredContent?.saved)).toMatch(/^saved as answer: /)
      expect(asked).toHaveLength(1)
      expect(readFileSync(join(root, '.ptc-mcp', 'programs', 'answer.py'), 'utf8')).toBe('print(6 * 7)\n')
    } finally {
      await client.close()
      rmSync(root, {recursive: true, force: true})
    }
  }, 120_000)
})
