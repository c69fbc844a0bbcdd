// @tier claude-code
/**
 * What the model reads of execute_program inside the real Claude Code (SPEC §5, §16): one answer
 * format without padding, the user's MAX_MCP_OUTPUT_TOKENS, and a program that outlives Claude
 * Code's move of a call to the background. Both protocol revisions, as claude-code.test.ts.
 */
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import type {FakeMessagesApi, ToolResult} from './fake-messages-api.js'

import {USUAL_SANDBOX_TIERS} from '../../src/sandbox/index.js'
import {
  type Era,
  ERAS,
  runClaudeSession,
  runId,
  type Session,
  SESSION_TIMEOUT_MS,
  type SessionOptions,
} from './claude-session.js'

const TIMEOUT_MS = SESSION_TIMEOUT_MS + 50_000

let current: Session | undefined

afterEach(async () => {
  await current?.cleanup()
  current = undefined
})

async function session(era: Era, options: Omit<SessionOptions, 'era'>): Promise<Session> {
  current = await runClaudeSession({era, ...options})
  expect
    .soft(current.era, `negotiated revision; Claude Code's log about ptc:\n${current.ptcDebug()}`)
    .toBe(era)
  return current
}

function resultOf(s: Session, n = 1): ToolResult {
  const result = s.api.toolResult(runId(n))
  expect(
    result,
    `no tool_result for program ${n}; Claude Code exited ${s.claude.code} and printed:\n${s.claude.stdout}\n${s.claude.stderr}\n${s.ptcDebug()}`,
  ).toBeDefined()
  return result!
}

/** Occurrences of `part` in `text`. */
const count = (text: string, part: string): number => text.split(part).length - 1

/** Everything the main conversation's requests carried, as the model would read it. */
const conversation = (api: FakeMessagesApi): string =>
  api
    .mainRequests()
    .map((request) => JSON.stringify(request.messages))
    .join('\n')

/** The text blocks of the main conversation's last request, as the model reads them. */
function texts(api: FakeMessagesApi): string[] {
  const last = api.mainRequests().at(-1)
  return (last?.messages ?? []).flatMap((message) =>
    typeof message.content === 'string'
      ? [message.content]
      : message.content.filter((block) => block.type === 'text').map((block) => block.text ?? ''),
  )
}

/** What the program prints at its end, computed so that its code does not contain it. */
const MARKER = 'long program done 42001'
const MARKER_CODE = 'print("long program done", 6 * 7 * 1000 + 1)'

describe.each(ERAS)('what the model reads, protocol %s', (era) => {
  it(
    'MAX_MCP_OUTPUT_TOKENS=2000 and 200 KB printed: at most 8,000 characters, the cut note in the first 300',
    async () => {
      const s = await session(era, {
        env: {MAX_MCP_OUTPUT_TOKENS: '2000'},
        programs: () => ['for i in range(2000):\n    print(f"line {i:05d} " + "x" * 90)'],
      })
      const result = resultOf(s)
      expect(result.isError, result.text.slice(0, 500)).toBe(false)
      expect(result.text.length, result.text.slice(0, 500)).toBeLessThanOrEqual(8000)
      expect(result.text.slice(0, 300)).toMatch(/bytes omitted: the whole output is in \//)
      // Inline, head and tail: not a file behind a preview.
      expect(result.text).not.toContain('persisted-output')
      expect(result.text).toMatch(/line 00000 x+/)
      expect(result.text).toMatch(/line 01999 x+/)
    },
    TIMEOUT_MS,
  )

  it(
    'print(1) answers in at most 120 bytes; an error the program caught and printed is said once',
    async () => {
      const s = await session(era, {
        programs: (dir) => [
          'print(1)',
          [
            'try:',
            `    await mcp__fs__read_text_file(path=${JSON.stringify(join(dir, 'missing.txt'))})`,
            'except ToolError as e:',
            '    print("could not read:", e)',
          ].join('\n'),
        ],
      })
      const small = resultOf(s, 1)
      expect(small.isError).toBe(false)
      expect(Buffer.byteLength(small.text), small.text).toBeLessThanOrEqual(120)
      // The sandbox is named only on a machine without the usual tier (no bwrap, say).
      const {sandbox, ...rest} = JSON.parse(small.text) as Record<string, unknown>
      expect(rest).toEqual({ok: true, output: '1\n'})
      if (sandbox !== undefined) expect(USUAL_SANDBOX_TIERS).not.toContain(sandbox)

      const caught = resultOf(s, 2)
      expect(caught.isError, caught.text).toBe(false)
      const structured = JSON.parse(caught.text) as {output: string; trace: string}
      const error = /^could not read: (.+)$/m.exec(structured.output)?.[1]
      expect(error, structured.output).toBeDefined()
      expect(error!.length).toBeGreaterThan(16)
      // Once in what the model reads: the output has it, the trace points there.
      expect(count(caught.text, JSON.stringify(error).slice(1, -1)), caught.text).toBe(1)
      expect(structured.trace).toMatch(
        /^\[tool calls: 1, 1 failed; [^\n]*\]\n {2}failed: mcp__fs__read_text_file \{"path":"[^"]*missing\.txt"\} \(error above\)$/,
      )
    },
    TIMEOUT_MS,
  )

  it(
    'a program of 8 s, moved to the background after 4 s, still gets its output to the model',
    async () => {
      const s = await session(era, {
        env: {CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS: '4000', CLAUDE_AUTO_BACKGROUND_TASKS: '1'},
        // stdin open until the model has read the program's end (then Claude Code may end).
        streamInput: {until: (api) => conversation(api).includes(MARKER)},
        programs: () => [['print("started", flush=True)', 'await asyncio.sleep(8)', MARKER_CODE].join('\n')],
      })
      const moved = resultOf(s)
      // Moved to the background: the first answer the model got says so, not the program's.
      expect(moved.text).toMatch(/moved to the background/)
      expect(moved.text).not.toContain(MARKER)
      const all = conversation(s.api)
      expect(
        all,
        `Claude Code exited ${s.claude.code}:\n${s.claude.stderr}\n${s.claude.stdout.slice(-3000)}\n${s.ptcDebug()}`,
      ).toContain(MARKER)
      // Later, a task notification holding the whole structured content.
      const notified = /<task-notification>[\s\S]*?<result>\n(.*)\n<\/result>/.exec(
        texts(s.api).join('\n'),
      )?.[1]
      expect(notified, all.slice(-3000)).toBeDefined()
      expect(JSON.parse(notified!)).toMatchObject({ok: true, output: `started\n${MARKER}\n`})
    },
    TIMEOUT_MS,
  )
})
