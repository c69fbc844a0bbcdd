// @tier claude-code
/**
 * What the model knows on its first turn inside the real Claude Code (SPEC §5, §16): ptc-mcp's
 * instructions name every configured server with its tool count (from the last session's catalogue
 * while servers connect, so a server that takes 10 s to start is still named with its count), and
 * execute_program is loaded with its full schema without a tool search. Then, on later turns:
 * a brief inspect of server-memory's nine tools stays within 160 bytes a tool, and `x = load("k")`
 * without await is named before anything runs, beside the awaited form that works. Both protocol
 * revisions; the two sessions of each share a HOME and a cache directory, as a user's do.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import type {RecordedRequest, Turn} from './fake-messages-api.js'

import {ERAS, EXECUTE, PTC, runClaudeSession, type Session, SESSION_TIMEOUT_MS} from './claude-session.js'
import {selectTool} from './fake-messages-api.js'

const INSPECT = `mcp__${PTC}__inspect_tool`
const SERVERS = ['fs', 'memory', 'slow'] as const
/** The tool counts of the servers (server-filesystem, server-memory, our fixture). */
const MEMORY_TOOLS = 9

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, {recursive: true, force: true})
})

function textsOf(content: RecordedRequest['messages'][number]['content']): string[] {
  return typeof content === 'string' ? [content] : content.map((block) => block.text ?? '')
}

/** The system prompt of a request, as one text. */
function systemText(request: RecordedRequest): string {
  const {system} = request
  if (system === undefined) return ''
  return typeof system === 'string' ? system : system.map((block) => block.text ?? '').join('\n')
}

/** ptc-mcp's instructions as Claude Code put them in the system prompt (from our first line to the last server). */
function ptcInstructions(request: RecordedRequest): string {
  // Claude Code 2.1.332 puts them in a reminder of the first user message, under "# MCP Server Instructions".
  const system = [systemText(request), ...request.messages.flatMap((m) => textsOf(m.content))].join('\n')
  const start = system.indexOf('When a task needs more than a couple of tool calls')
  expect(start, `no ptc-mcp instructions in the system prompt:\n${system.slice(-4000)}`).toBeGreaterThan(-1)
  const lines = system.slice(start).split('\n')
  const end = lines.findIndex((line, n) => n > 1 && !line.startsWith('- '))
  return lines.slice(0, end === -1 ? undefined : end).join('\n')
}

/** The first session's turns: two programs at once (no tool search), a search, a brief inspect, a call that waits for `slow`. */
const FIRST_TURNS: Turn[] = [
  {
    toolUse: [
      {
        id: 'toolu_awaited',
        name: EXECUTE,
        input: {code: 'await store("k", 41)\nx = await load("k")\nprint(x + 1)'},
      },
    ],
  },
  {toolUse: [{id: 'toolu_unawaited', name: EXECUTE, input: {code: 'x = load("k")\nprint(x + 1)'}}]},
  selectTool(INSPECT),
  {toolUse: [{id: 'toolu_brief', name: INSPECT, input: {tool_names: 'mcp__memory__*', brief: true}}]},
  // A call to a server still starting waits for it: once it is up, serve keeps what it offers.
  {toolUse: [{id: 'toolu_slow', name: EXECUTE, input: {code: 'print(await mcp__slow__echo(text="up"))'}}]},
  {text: 'All done.'},
]

function failure(s: Session): string {
  return `Claude Code exited ${s.claude.code}:\n${s.claude.stdout}\n${s.claude.stderr}\n${s.ptcDebug()}`
}

describe.each(ERAS)('the first turn inside Claude Code, protocol %s', (era) => {
  it(
    'instructions name every server with its tool count (a slow one from the cache), execute_program loaded from the first request; brief inspect and unawaited helpers',
    async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-first-turn-')))
      dirs.push(dir)
      const home = join(dir, 'home')
      // Claude Code connects its MCP servers without waiting for them unless it is told to (or, not
      // always, when it listed them before): its first request may leave before ptc-mcp has answered
      // on a loaded machine. Waiting makes the first request the one after serve's answer.
      const env = {XDG_CACHE_HOME: join(dir, 'cache'), MCP_CONNECTION_NONBLOCKING: 'false'}
      // The user allows inspect_tool (as --allowedTools does execute_program) and the slow server's
      // tools (ptc-mcp follows the user's rules inside programs: no question in print mode).
      mkdirSync(join(home, '.claude'), {recursive: true})
      writeFileSync(
        join(home, '.claude', 'settings.json'),
        JSON.stringify({permissions: {allow: [INSPECT, 'mcp__slow__*']}}),
      )
      const first = await runClaudeSession({
        era,
        servers: [...SERVERS],
        home,
        env,
        programs: () => [],
        turns: () => FIRST_TURNS,
      })
      try {
        expect.soft(first.era, failure(first)).toBe(era)
        const [opening] = first.api.mainRequests()
        expect(opening, failure(first)).toBeDefined()
        // Never seen before: named, as connecting.
        const seenFirst = ptcInstructions(opening!)
        for (const name of SERVERS) expect(seenFirst).toContain(`- ${name} (`)
        expect(seenFirst).toContain('- slow (connecting)')
        // execute_program: in `tools` from the first request, with its whole schema, no search first.
        const execute = opening!.tools?.find((tool) => tool.name === EXECUTE) as
          {defer_loading?: boolean; input_schema?: {properties?: Record<string, unknown>}} | undefined
        expect(execute, JSON.stringify(opening!.tools?.map((t) => t.name))).toBeDefined()
        expect(execute!.defer_loading).not.toBe(true)
        expect(Object.keys(execute!.input_schema?.properties ?? {})).toEqual([
          'code',
          'save_as',
          'description',
          'save_to',
          'replace',
        ])

        const awaited = first.api.toolResult('toolu_awaited')
        expect(awaited?.isError, failure(first)).toBe(false)
        expect(awaited!.text).toContain('42')
        // Not awaited: named before anything ran, with its line and the awaited form.
        const unawaited = first.api.toolResult('toolu_unawaited')
        expect(unawaited?.text, failure(first)).toContain('PreflightError')
        expect(unawaited!.text).toContain('line 1')
        expect(unawaited!.text).toContain('await load(...)')
        expect(unawaited!.text).not.toContain('TypeError')

        const brief = first.api.toolResult('toolu_brief')
        expect(brief?.isError, failure(first)).toBe(false)
        for (const tool of ['read_graph', 'search_nodes', 'create_entities'])
          expect(brief!.text).toContain(tool)
        expect(Buffer.byteLength(brief!.text) / MEMORY_TOOLS, brief!.text).toBeLessThanOrEqual(160)
        expect(first.api.toolResult('toolu_slow')?.text, failure(first)).toContain('up')
      } finally {
        await first.cleanup()
      }

      // The next session: the slow server is named with its count before it has started again.
      const second = await runClaudeSession({
        era,
        servers: [...SERVERS],
        home,
        env,
        programs: () => [],
        // One program: the engine is up (and its warm child's scratch directory removed) by the time
        // Claude Code stops serve, which a server still starting slows down.
        turns: () => [
          {toolUse: [{id: 'toolu_one', name: EXECUTE, input: {code: 'print(1)'}}]},
          {text: 'Done.'},
        ],
      })
      try {
        expect.soft(second.era, failure(second)).toBe(era)
        const [opening] = second.api.mainRequests()
        expect(opening, failure(second)).toBeDefined()
        const instructions = ptcInstructions(opening!)
        expect(instructions.length).toBeLessThanOrEqual(2000)
        // fs serves each session's own data directory (its arguments say so): to the cache, another server.
        expect(instructions).toMatch(/^- fs \((14 tools|connecting)\)/m)
        expect(instructions).toMatch(/^- memory \(9 tools\): /m)
        expect(instructions).toMatch(/^- slow \(\d+ tools\): /m)
        expect(instructions).not.toMatch(/- (memory|slow) \(connecting\)/)
        expect(second.api.toolResult('toolu_one')?.isError, failure(second)).toBe(false)
      } finally {
        await second.cleanup()
      }
    },
    2 * SESSION_TIMEOUT_MS + 60_000,
  )
})
