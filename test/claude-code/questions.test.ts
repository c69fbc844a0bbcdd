// @tier claude-code
/**
 * Few questions, never a lost program (SPEC §12), inside the real Claude Code: it ends a tools/call
 * after 10 input_required rounds and loses the program's output, and a person asked 25 times stops
 * reading. server-filesystem's write_file asks under the shipped defaults; an accepting Elicitation
 * hook answers "once" to every question. Both protocol revisions.
 */
import {existsSync, readdirSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'

import type {ToolResult} from './fake-messages-api.js'

import {type Era, ERAS, runClaudeSession, runId, type Session, SESSION_TIMEOUT_MS} from './claude-session.js'

const TIMEOUT_MS = SESSION_TIMEOUT_MS + 50_000
const WRITES = 24
/** The hook allows what it is asked about, once. */
const ACCEPT = {decision: 'once'}

let current: Session | undefined

afterEach(async () => {
  await current?.cleanup()
  current = undefined
})

const py = (value: string): string => JSON.stringify(value)

async function session(era: Era, program: (dir: string) => string): Promise<Session> {
  current = await runClaudeSession({era, hookAnswers: ACCEPT, programs: (dir) => [program(dir)]})
  expect
    .soft(current.era, `negotiated revision; Claude Code's log about ptc:\n${current.ptcDebug()}`)
    .toBe(era)
  return current
}

function resultOf(s: Session): ToolResult {
  const result = s.api.toolResult(runId(1))
  expect(
    result,
    `no tool_result; Claude Code exited ${s.claude.code} and printed:\n${s.claude.stdout}\n${s.claude.stderr}\n${s.ptcDebug()}`,
  ).toBeDefined()
  return result!
}

/** The files the programs wrote into the data directory. */
const written = (s: Session): string[] =>
  existsSync(s.dataDir) ? readdirSync(s.dataDir).filter((name) => /^f\d+\.txt$/.test(name)) : []

describe.each(ERAS)('few questions inside Claude Code, protocol %s', (era) => {
  it(
    '24 writes with one tool: all written, the output reaches the model, at most 2 questions',
    async () => {
      const s = await session(era, (dir) =>
        [
          `for i in range(${WRITES}):`,
          `    await mcp__fs__write_file(path=${py(dir)} + f"/f{i}.txt", content=f"file {i}")`,
          `print("wrote", ${WRITES}, "files")`,
        ].join('\n'),
      )
      const result = resultOf(s)
      expect(result.isError, result.text).toBe(false)
      expect(result.text).toContain(`wrote ${WRITES} files`)
      expect(written(s)).toHaveLength(WRITES)
      const asked = s.hookRequests()
      expect(asked.length, JSON.stringify(asked)).toBeGreaterThanOrEqual(1)
      expect(asked.length).toBeLessThanOrEqual(2)
      expect(asked[0]!.message).toContain(`mcp__fs__write_file ${WRITES} times`)
    },
    TIMEOUT_MS,
  )

  it(
    "more rounds than the cap: the tool_result holds the output and a trace naming the calls run and denied, never Claude Code's round error",
    async () => {
      // Calls through a name the program binds: the check before the run cannot see them, and
      // "once" to each question asks again at the next call.
      const s = await session(era, (dir) =>
        [
          'write = mcp__fs__write_file',
          'done, denied = 0, 0',
          `for i in range(${WRITES}):`,
          '    try:',
          `        await write(path=${py(dir)} + f"/f{i}.txt", content=f"file {i}")`,
          '        done += 1',
          '    except ToolError as e:',
          '        denied += 1',
          'print("written:", done, "denied:", denied)',
        ].join('\n'),
      )
      const result = resultOf(s)
      expect(result.text).not.toMatch(/still required input/)
      expect(result.isError, result.text).toBe(false)
      // permissions.max_question_rounds (8, below Claude Code's 10): 8 asked and written.
      expect(s.hookRequests()).toHaveLength(8)
      expect(written(s)).toHaveLength(8)
      expect(result.text).toContain('written: 8 denied: 16')
      expect(result.text).toContain(`[tool calls: ${WRITES}, 16 failed`)
      expect(result.text).toMatch(
        /failed: mcp__fs__write_file \{[^\n]*\}: denied: this program already asked the user 8 questions \(permissions\.max_question_rounds\)/,
      )
      expect(result.text).toContain('... 11 more failures')
    },
    TIMEOUT_MS,
  )
})
