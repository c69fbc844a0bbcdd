import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import type {ToolCallTrace} from './trace.js'

import {executionSchema} from '../../config/schema.js'
import {answerChars, cutOutput, fitAnswer} from './answer-limit.js'
import {composeOutcome, type RunOutcome} from './outcome.js'
import {OutputCapture} from './output-capture.js'
import {structuredOutcome} from './structured-outcome.js'

const execution = executionSchema.parse({})
const dir = mkdtempSync(join(tmpdir(), 'ptc-answer-limit-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

function outcomeOf(
  output: string,
  more: {result?: unknown; calls?: ToolCallTrace[]; ok?: boolean} = {},
): RunOutcome {
  const ok = more.ok ?? true
  return composeOutcome(
    {
      end: ok
        ? {kind: 'done', ok: true, error: null, hasResult: 'result' in more, result: more.result ?? null}
        : {kind: 'done', ok: false, error: 'ValueError: boom', hasResult: false, result: null},
      output,
      toolCalls: more.calls ?? [],
      elapsedMs: 40,
      sandbox: 'linux:bwrap+landlock+seccomp',
    },
    execution,
  )
}

/** 200 KB printed, captured under a cap as a run does, the whole kept in a file. */
function bigCaptured(cap: number): {output: string; total: number; whole: string} {
  let total = 0
  const capture = new OutputCapture(cap, {runDir: () => dir, maxBytes: 1_048_576})
  for (let i = 0; i < 2000; i++) {
    const line = `line ${String(i).padStart(5, '0')} ${'x'.repeat(90)}\n`
    capture.write(Buffer.from(line))
    total += line.length
  }
  const output = capture.text()
  return {output, total, whole: capture.wholeOutputPath!}
}

describe('the user’s limit on one answer (MAX_MCP_OUTPUT_TOKENS, SPEC §5)', () => {
  it('an answer that fits is left as it is', () => {
    const outcome = outcomeOf('1\n')
    expect(fitAnswer(outcome, 120)).toBe(outcome)
  })

  it('200 KB printed, cut at 64 KB by the capture, 8,000 characters allowed: text and JSON together fit, the cut note first, the counts add up', () => {
    const {output, total, whole} = bigCaptured(65_536)
    const fitted = fitAnswer(
      outcomeOf(output, {calls: [{tool: 'mcp__a__b', args: {}, ok: true, ms: 1}]}),
      8000,
    )
    expect(answerChars(fitted)).toBeLessThanOrEqual(8000)
    const note = fitted.output.split('\n')[0]!
    expect(note).toMatch(
      new RegExp(`^\\.\\.\\. \\[(\\d+) bytes omitted: the whole output is in ${whole}\\]$`),
    )
    expect(JSON.stringify(structuredOutcome(fitted)).slice(0, 300)).toContain(note)
    expect(fitted.text.split('\n')[1]).toBe(note)
    // What is kept and what the note counts are the whole output.
    const omitted = Number(/(\d+) bytes omitted/.exec(note)![1])
    const kept = fitted.output.split('\n').filter((line) => line !== note)
    expect(omitted + Buffer.byteLength(kept.join('\n'))).toBe(total)
    expect(fitted.output).toMatch(/^line 00000 x+$/m)
    expect(fitted.output).toMatch(/line 01999 x+\n$/)
    expect(readFileSync(whole, 'utf8')).toHaveLength(total)
    // The trace is still there, after the output.
    expect(fitted.text).toMatch(/\n\[tool calls: 1; 0\.0s\]$/)
  })

  it('an output under the cap but over the limit is cut too, its note counting what was left out', () => {
    const output = Array.from({length: 300}, (_, i) => `"quoted" row ${i}`).join('\n') + '\n'
    const fitted = fitAnswer(outcomeOf(output), 2000)
    expect(answerChars(fitted)).toBeLessThanOrEqual(2000)
    const note = /^\.\.\. \[(\d+) bytes omitted\]$/.exec(fitted.output.split('\n')[0]!)
    expect(note).not.toBeNull()
    const kept = fitted.output.split('\n').filter((line) => line !== note![0])
    expect(Number(note![1]) + Buffer.byteLength(kept.join('\n'))).toBe(Buffer.byteLength(output))
    expect(fitted.output).toContain('"quoted" row 0\n')
    expect(fitted.output).toContain('"quoted" row 299\n')
  })

  it('a failure keeps its error and cuts the output before it', () => {
    const fitted = fitAnswer(outcomeOf('y'.repeat(50_000), {ok: false}), 4000)
    expect(answerChars(fitted)).toBeLessThanOrEqual(4000)
    expect(fitted.text).toMatch(
      /^\[Script execution failed\]\nValueError: boom\n--- output before the error ---\n\.\.\. \[\d+ bytes omitted\]\n/,
    )
  })

  it('a large emit() value is shortened once the output is gone', () => {
    const result = {rows: Array.from({length: 2000}, (_, i) => ({id: i, name: `row ${i}`}))}
    const fitted = fitAnswer(outcomeOf('ok\n', {result}), 3000)
    expect(answerChars(fitted)).toBeLessThanOrEqual(3000)
    expect(JSON.stringify(fitted.result)).toContain('…')
  })

  it('cutOutput keeps whole lines at both ends and never half a character', () => {
    const output = Array.from({length: 100}, (_, i) => `😀 line ${i}`).join('\n') + '\n'
    const cut = cutOutput(output, 200)
    const [note, ...rest] = cut.split('\n')
    expect(note).toMatch(/^\.\.\. \[\d+ bytes omitted\]$/)
    expect(rest[0]).toBe('😀 line 0')
    expect(cut.endsWith('😀 line 99\n')).toBe(true)
    // A lone half of a surrogate pair would not survive the round trip through UTF-8.
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut)
    expect(cutOutput('short\n', 200)).toBe('short\n')
  })
})
