// @tier claude-code
/**
 * ptc-mcp inside the real Claude Code (SPEC §16): `claude -p` from npm, a scripted model behind a
 * fake Messages API, ptc-mcp registered with `claude mcp add`. Every scenario runs in both protocol
 * revisions (2026-07-28 when serve answers Claude Code's probe in time; 2025-11-25 forced with
 * MCP_PROTOCOL_NEGOTIATION=legacy), checks that revision was the one negotiated, and asserts on
 * the tool_result Claude Code passed to the model: what the model actually reads.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import type {ToolResult} from './fake-messages-api.js'

import {spawnCli} from '../helpers/serve.js'
import {
  type Era,
  ERAS,
  runClaudeSession,
  runId,
  type Session,
  SESSION_TIMEOUT_MS,
  type SessionOptions,
} from './claude-session.js'

/** A session (bounded by SESSION_TIMEOUT_MS), `claude mcp add` before it and the leak check after. */
const TIMEOUT_MS = SESSION_TIMEOUT_MS + 50_000

let current: Session | undefined

afterEach(async () => {
  await current?.cleanup()
  current = undefined
})

/** Runs the session and checks that the revision it was to use is the one Claude Code negotiated. */
async function session(era: Era, options: Omit<SessionOptions, 'era'>): Promise<Session> {
  current = await runClaudeSession({era, ...options})
  expect
    .soft(current.era, `negotiated revision; Claude Code's log about ptc:\n${current.ptcDebug()}`)
    .toBe(era)
  return current
}

/** The tool_result of the n-th program, which must have reached the model. */
function resultOf(s: Session, n = 1): ToolResult {
  const result = s.api.toolResult(runId(n))
  expect(
    result,
    `no tool_result for program ${n}; Claude Code exited ${s.claude.code} and printed:\n${s.claude.stdout}\n${s.claude.stderr}\n${s.ptcDebug()}`,
  ).toBeDefined()
  return result!
}

const py = (value: string): string => JSON.stringify(value)

/** A destructive call (server-filesystem's write_file declares destructiveHint: true). */
const writeProgram = (dir: string): string =>
  [
    `await mcp__fs__write_file(path=${py(join(dir, 'out.txt'))}, content="written by the program")`,
    'print("wrote it")',
  ].join('\n')

/** The Elicitation hook's answers: allow once for ptc-mcp's approval form, a name for other forms. */
const ACCEPT = {decision: 'once', name: 'Ada Hook'}

describe.each(ERAS)('inside Claude Code, protocol %s', (era) => {
  it(
    'a read: the printed line reaches the model, as the structured content of SPEC §5',
    async () => {
      const s = await session(era, {
        files: {'notes.txt': 'the first line\nthe second line\n'},
        programs: (dir) => [
          [
            `r = await mcp__fs__read_text_file(path=${py(join(dir, 'notes.txt'))})`,
            'print("first:", r["content"].splitlines()[0])',
          ].join('\n'),
        ],
      })
      const result = resultOf(s)
      expect(result.isError, result.text).toBe(false)
      expect(result.text).toContain('first: the first line')
      // What Claude Code passes for a successful call is JSON.stringify of our structured content.
      const structured = JSON.parse(result.text) as Record<string, unknown>
      // The text's facts in its order, nothing empty (the sandbox only when not the usual tier).
      expect(Object.keys(structured).filter((key) => key !== 'sandbox')).toEqual(['ok', 'output', 'trace'])
      expect(structured).toMatchObject({ok: true, output: 'first: the first line\n'})
      expect(structured.trace).toMatch(/^\[tool calls: 1[;\]]/)
    },
    TIMEOUT_MS,
  )

  it(
    'a destructive write with the shipped defaults, in print mode, no hook, no allow rule: refused, saying how to allow it',
    async () => {
      const s = await session(era, {programs: (dir) => [writeProgram(dir)]})
      const result = resultOf(s)
      expect(existsSync(join(s.dataDir, 'out.txt'))).toBe(false)
      expect(result.text).not.toContain('wrote it')
      expect(result.text).toMatch(/nobody answered/i)
      expect(result.text).toMatch(/allow rule/i)
      expect(result.text).toMatch(/Elicitation hook/i)
      expect(result.text).not.toMatch(/do not retry/i)
    },
    TIMEOUT_MS,
  )

  it(
    'the same write with an accepting Elicitation hook: written, the hook asked exactly once',
    async () => {
      const s = await session(era, {hookAnswers: ACCEPT, programs: (dir) => [writeProgram(dir)]})
      const result = resultOf(s)
      expect(result.text).toContain('wrote it')
      expect(readFileSync(join(s.dataDir, 'out.txt'), 'utf8')).toBe('written by the program')
      const asked = s.hookRequests()
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatchObject({mcp_server_name: 'ptc'})
      expect(asked[0]!.message).toContain('mcp__fs__write_file')
      expect(Object.keys(asked[0]!.requested_schema?.properties ?? {})).toEqual(['decision'])
    },
    TIMEOUT_MS,
  )

  it(
    'the same write with a Claude Code allow rule for the tool: written, the hook never asked',
    async () => {
      const s = await session(era, {
        hookAnswers: ACCEPT,
        projectSettings: {permissions: {allow: ['mcp__fs__write_file']}},
        programs: (dir) => [writeProgram(dir)],
      })
      const result = resultOf(s)
      expect(result.text).toContain('wrote it')
      expect(readFileSync(join(s.dataDir, 'out.txt'), 'utf8')).toBe('written by the program')
      expect(s.hookRequests()).toEqual([])
    },
    TIMEOUT_MS,
  )

  it(
    'an image the program shows reaches the model as an image block',
    async () => {
      const s = await session(era, {
        servers: ['everything'],
        programs: () => [
          [
            'r = await mcp__everything__get_tiny_image()',
            'image = r["_media"][0]',
            'show(image)',
            'print("shown", image.mime_type)',
          ].join('\n'),
        ],
      })
      const result = resultOf(s)
      expect(result.isError, result.text).toBe(false)
      expect(result.text).toContain('shown image/png')
      const images = result.blocks.filter((block) => block.type === 'image')
      expect(images, JSON.stringify(result.blocks.map((block) => block.type))).toHaveLength(1)
      expect(images[0]!.source).toMatchObject({type: 'base64', media_type: 'image/png'})
      expect(images[0]!.source!.data!.length).toBeGreaterThan(100)
    },
    TIMEOUT_MS,
  )

  it(
    "a downstream server's elicitation: its tool is listed, and the hook's answer reaches the program",
    async () => {
      const s = await session(era, {
        servers: ['everything'],
        hookAnswers: ACCEPT,
        programs: () => [
          'print("listed:", "mcp__everything__trigger_elicitation_request" in await list_callable_tools())',
          ['r = await mcp__everything__trigger_elicitation_request()', 'print("answer:", r)'].join('\n'),
        ],
      })
      expect(resultOf(s, 1).text).toContain('listed: True')
      const result = resultOf(s, 2)
      expect(result.text).toContain('Name: Ada Hook')
      // The form reached the hook labelled with the server it comes from (SPEC §12).
      const forwarded = s.hookRequests().filter((request) => request.message.includes('[everything]'))
      expect(forwarded, JSON.stringify(s.hookRequests())).toHaveLength(1)
      expect(Object.keys(forwarded[0]!.requested_schema?.properties ?? {})).toContain('name')
    },
    TIMEOUT_MS,
  )

  it(
    '200 KB printed: the cut note is within the first 300 characters the model reads',
    async () => {
      const s = await session(era, {
        programs: () => ['for i in range(2000):\n    print(f"line {i:05d} " + "x" * 90)'],
      })
      const result = resultOf(s)
      expect(result.isError, result.text.slice(0, 500)).toBe(false)
      expect(result.text.slice(0, 300)).toContain('bytes omitted')
      // Inline, not kept in a file behind a 2 KB preview: execute_program's maxResultSizeChars.
      expect(result.text).not.toContain('persisted-output')
      expect(result.text).toMatch(/line 01999 x+/)
    },
    TIMEOUT_MS,
  )

  it(
    'a failure: the model reads the error text, naming the exception',
    async () => {
      const s = await session(era, {
        programs: () => ['print("before the error")\nraise ValueError("the answer is not 42")'],
      })
      const result = resultOf(s)
      expect(result.isError).toBe(true)
      expect(result.text).toContain('[Script execution failed]')
      expect(result.text).toContain('ValueError: the answer is not 42')
      expect(result.text).toContain('before the error')
    },
    TIMEOUT_MS,
  )

  it(
    'state between programs (SPEC §6.2): program 1 fetches 20 files and keeps a summary and a CSV; program 2 answers from them with no tool call',
    async () => {
      const names = Array.from({length: 20}, (_, i) => `f${String(i).padStart(2, '0')}.txt`)
      const files = Object.fromEntries(
        names.map((name, i) => [name, Array.from({length: i + 1}, (_, n) => `line ${n}`).join('\n')]),
      )
      const s = await session(era, {
        files,
        programs: (dir) => [
          [
            'import csv',
            `names = ${JSON.stringify(names)}`,
            `rs = await asyncio.gather(*[mcp__fs__read_text_file(path=${py(dir)} + "/" + n) for n in names])`,
            'rows = [(n, len(r["content"].splitlines())) for n, r in zip(names, rs)]',
            'await store("summary", {"files": len(rows), "lines": sum(n for _, n in rows)})',
            'with open("session/lines.csv", "w", newline="") as f:',
            '    csv.writer(f).writerows([("file", "lines"), *rows])',
            'print("kept")',
          ].join('\n'),
          [
            'import csv',
            's = await load("summary")',
            'rows = list(csv.DictReader(open("session/lines.csv")))',
            'print(s["files"], s["lines"], len(rows), rows[-1]["file"], rows[-1]["lines"])',
          ].join('\n'),
        ],
      })
      const first = resultOf(s, 1)
      expect(first.isError, first.text).toBe(false)
      const kept = JSON.parse(first.text) as {output: string; trace: string}
      expect(kept.output).toBe('kept\n')
      // The model reads what the program kept for the next ones.
      expect(kept.trace).toMatch(
        /^\[tool calls: 20;[^\n]*\]\n\[stored: summary 24 bytes; session\/: 1 file, \d+ bytes\]$/,
      )
      const second = resultOf(s, 2)
      expect(second.isError, second.text).toBe(false)
      // No call, nothing stored: no trace.
      const answered = JSON.parse(second.text) as Record<string, unknown>
      expect(answered).toMatchObject({ok: true, output: '20 210 20 f19.txt 20\n'})
      expect(answered).not.toHaveProperty('trace')
    },
    TIMEOUT_MS,
  )

  it(
    'three mistakes (a misspelt tool, wrong keywords, a missing await): the model reads all three at once, and nothing ran',
    async () => {
      const s = await session(era, {
        servers: ['everything'],
        programs: () => [
          [
            'print("never printed")',
            'r = await mcp__everything__ecoh(message="hi")',
            'total = await mcp__everything__get_sum(x=1, y=2)',
            'mcp__everything__echo(message="lost")',
          ].join('\n'),
        ],
      })
      const result = resultOf(s)
      expect(result.isError).toBe(true)
      expect(result.text).toContain('[Script execution failed]')
      expect(result.text).toContain(
        'PreflightError: 3 problems found before the program ran; nothing ran and no tool was called.',
      )
      expect(result.text).toMatch(
        /\n {2}line 2: Unknown tool 'mcp__everything__ecoh'\. Did you mean mcp__everything__echo.*\n {4}await mcp__everything__echo\(\*, message: str\)/,
      )
      expect(result.text).toMatch(
        /\n {2}line 3: mcp__everything__get_sum\(\): unexpected argument 'x' \(did you mean 'a'\?\); unexpected argument 'y' \(did you mean 'b'\?\)\n {4}await mcp__everything__get_sum\(\*, a: float, b: float\)/,
      )
      expect(result.text).toMatch(
        /\n {2}line 4: mcp__everything__echo\(\): never awaited, so it would never run: write `await mcp__everything__echo\(\.\.\.\)`/,
      )
      expect(result.text).not.toContain('never printed')
      expect(result.text).not.toContain('[tool calls:')
    },
    TIMEOUT_MS,
  )

  it(
    "60 calls printing 2 lines: the model reads at most the program's text + 600 bytes",
    async () => {
      const program = [
        'import asyncio',
        'rs = await asyncio.gather(*[mcp__everything__echo(message=f"m{i}") for i in range(60)])',
        'print(len(rs), "echoes")',
        'print(rs[-1])',
      ].join('\n')
      const s = await session(era, {servers: ['everything'], programs: () => [program]})
      const result = resultOf(s)
      expect(result.isError, result.text).toBe(false)
      expect(result.text).toContain('60 echoes')
      // The §8 text of the same program, from `ptc-mcp run` with the same config.
      const file = join(s.projectDir, 'sixty.py')
      writeFileSync(file, program)
      const text = await spawnCli(['run', '--config', s.configPath, file], {
        cwd: s.projectDir,
        timeoutMs: 60_000,
      }).done
      expect(text.code, text.stderr).toBe(0)
      expect(text.stdout).toContain('60 echoes')
      expect(
        Buffer.byteLength(result.text),
        `text ${Buffer.byteLength(text.stdout)} bytes:\n${text.stdout}\nmodel read:\n${result.text}`,
      ).toBeLessThanOrEqual(Buffer.byteLength(text.stdout) + 600)
    },
    TIMEOUT_MS,
  )
})
