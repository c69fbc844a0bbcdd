import {describe, expect, it} from 'vitest'

import type {ToolCallTrace} from './format.js'

import {executionSchema} from '../config/schema.js'
import {composeOutcome, type RunOutcome} from './outcome.js'
import {OutputCapture} from './output-capture.js'
import {STRUCTURE_ALLOWANCE_BYTES, structuredOutcome} from './structured-outcome.js'

const execution = executionSchema.parse({})

function outcomeOf(calls: ToolCallTrace[], output = 'done\n', ok = true): RunOutcome {
  return composeOutcome(
    {
      end: ok
        ? {kind: 'done', ok: true, error: null, hasResult: false, result: null}
        : {kind: 'done', ok: false, error: 'ValueError: boom', hasResult: false, result: null},
      output,
      toolCalls: calls,
      elapsedMs: 1234,
      sandbox: 'linux:bwrap+landlock+seccomp',
    },
    execution,
  )
}

/** How many bytes the JSON the model reads adds to the text, JSON escaping of the output aside. */
function overhead(outcome: RunOutcome, options?: {allCalls?: boolean}): number {
  const json = JSON.stringify(structuredOutcome(outcome, options))
  const escaping = Buffer.byteLength(JSON.stringify(outcome.output)) - Buffer.byteLength(outcome.output)
  return Buffer.byteLength(json) - escaping - Buffer.byteLength(outcome.text)
}

const call = (tool: string, ok = true, extra: Partial<ToolCallTrace> = {}): ToolCallTrace => ({
  tool,
  args: {q: 'x'},
  ok,
  ms: 2,
  ...(ok ? {} : {error: `${tool} failed: not found`}),
  ...extra,
})

describe('structured content of execute_program (SPEC §5)', () => {
  it('carries the text’s status, output and trace, and counts the calls per tool, most called first', () => {
    const calls = [
      ...Array.from({length: 3}, () => call('mcp__a__x')),
      ...Array.from({length: 5}, () => call('mcp__a__y')),
    ]
    calls.push(call('mcp__a__x', false, {approval: 'denied'}))
    const outcome = outcomeOf(calls)
    const structured = structuredOutcome(outcome)
    expect(Object.keys(structured).slice(0, 3)).toEqual(['ok', 'status', 'output'])
    expect(structured).toMatchObject({
      ok: true,
      status: '[Script executed successfully]',
      output: 'done\n',
      result: null,
      error: null,
      trace: '[tool calls: 9, 1 failed; 1.2s]\n  failed: mcp__a__x: mcp__a__x failed: not found',
      sandbox: 'linux:bwrap+landlock+seccomp',
    })
    expect(outcome.text.endsWith(structured.trace)).toBe(true)
    expect(Object.entries(structured.tool_calls.counts)).toEqual([
      ['mcp__a__y', {calls: 5, failed: 0}],
      ['mcp__a__x', {calls: 4, failed: 1}],
    ])
    expect(structured.tool_calls.failed).toEqual([
      {tool: 'mcp__a__x', args: {q: 'x'}, error: 'mcp__a__x failed: not found', ms: 2, approval: 'denied'},
    ])
    expect(structured.tool_calls.calls).toBeUndefined()
  })

  it('60 successful calls printing 2 lines add little to the text', () => {
    const outcome = outcomeOf(
      Array.from({length: 60}, (_, i) => call('mcp__everything__echo', true, {args: {message: `m${i}`}})),
      'first\nsecond\n',
    )
    expect(overhead(outcome)).toBeLessThanOrEqual(STRUCTURE_ALLOWANCE_BYTES)
    expect(overhead(outcome)).toBeLessThan(200)
  })

  it.each([
    [
      'many tools with long names',
      Array.from({length: 300}, (_, i) => call(`mcp__srv__${'t'.repeat(180)}${i}`)),
    ],
    [
      'many failures with huge arguments and errors',
      Array.from({length: 100}, (_, i) =>
        call(`mcp__srv__tool${i % 7}`, false, {
          args: {blob: 'z'.repeat(100_000), n: i},
          error: `E${'e'.repeat(5000)}\n"quoted"\\`,
        }),
      ),
    ],
    [
      'forged tool names of a megabyte',
      Array.from({length: 20}, (_, i) => call(`mcp__x__${String(i).repeat(1_000_000)}`, i % 2 === 0)),
    ],
  ])('%s: the JSON stays within the text + 600 bytes', (_name, calls) => {
    for (const ok of [true, false]) {
      const outcome = outcomeOf(calls, 'a "quoted" \\ line\n', ok)
      expect(overhead(outcome)).toBeLessThanOrEqual(STRUCTURE_ALLOWANCE_BYTES)
      const {counts, failed} = structuredOutcome(outcome).tool_calls
      const counted = Object.values(counts).reduce((sum, count) => sum + count.calls, 0)
      expect(counted).toBe(calls.length)
      expect(failed.length).toBeLessThanOrEqual(5)
    }
  })

  it('with trace off, the text has no trace and the JSON still fits', () => {
    const outcome = composeOutcome(
      {
        end: {kind: 'done', ok: true, error: null, hasResult: false, result: null},
        output: '',
        toolCalls: Array.from({length: 50}, (_, i) => call(`mcp__s__t${i}`, i % 3 !== 0)),
        elapsedMs: 10,
        sandbox: 'none',
      },
      executionSchema.parse({trace: 'off'}),
    )
    expect(outcome.trace).toBe('')
    expect(structuredOutcome(outcome).trace).toBe('')
    expect(overhead(outcome)).toBeLessThanOrEqual(STRUCTURE_ALLOWANCE_BYTES)
  })

  it('allCalls lists every call, each cut as the trace cuts it', () => {
    const calls = Array.from({length: 120}, (_, i) =>
      call('mcp__a__x', true, {args: {i, big: 'b'.repeat(10_000)}}),
    )
    const listed = structuredOutcome(outcomeOf(calls), {allCalls: true}).tool_calls.calls!
    expect(listed).toHaveLength(120)
    expect(listed[119]).toMatchObject({tool: 'mcp__a__x', ok: true})
    expect(JSON.stringify(listed[0]!.args).length).toBeLessThanOrEqual(200)
  })

  it('output over the cap shows the cut note within the first 300 characters of the JSON', () => {
    const capture = new OutputCapture(65_536)
    for (let i = 0; i < 4000; i++) capture.write(Buffer.from(`row ${i}: ${'v'.repeat(40)}\n`))
    const json = JSON.stringify(structuredOutcome(outcomeOf([], capture.text())))
    expect(json.slice(0, 300)).toMatch(/bytes omitted/)
  })
})
