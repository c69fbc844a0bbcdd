import {describe, expect, it} from 'vitest'

import type {ToolCallTrace} from './trace.js'

import {executionSchema} from '../../config/schema.js'
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

/** The fields of the structured content, in the order their facts appear in the text. */
function inTextOrder(outcome: RunOutcome): void {
  const structured = structuredOutcome(outcome)
  let from = 0
  for (const [key, value] of Object.entries(structured)) {
    if (key === 'ok' || key === 'sandbox' || key === 'calls') continue
    const fact = key === 'result' ? JSON.stringify(value, null, 2) : String(value).replace(/\n$/, '')
    const at = outcome.text.indexOf(fact, from)
    expect(at, `${key} after offset ${from} in:\n${outcome.text}`).toBeGreaterThanOrEqual(from)
    from = at + fact.length
  }
}

/** No null, empty or default-valued field (an emitted None aside: the program chose it). */
function expectNoPadding(structured: object): void {
  for (const [key, value] of Object.entries(structured)) {
    if (key === 'result') continue
    expect(value, key).not.toBeNull()
    expect(value, key).not.toEqual('')
    expect(value, key).not.toEqual([])
    expect(value, key).not.toEqual({})
  }
}

describe('structured content of execute_program (SPEC §5)', () => {
  it('print(1) with no call: ok and the output, nothing else, within 120 bytes', () => {
    const json = JSON.stringify(structuredOutcome(outcomeOf([], '1\n')))
    expect(json).toBe('{"ok":true,"output":"1\\n"}')
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(120)
  })

  it('carries the text’s facts in the text’s order, with nothing empty, null or default', () => {
    const calls = [call('mcp__a__x'), call('mcp__a__y', false)]
    const cases: RunOutcome[] = [
      outcomeOf([]),
      outcomeOf([], ''),
      outcomeOf(calls),
      outcomeOf(calls, 'done\n', false),
      outcomeOf(calls, '', false),
      composeOutcome(
        {
          end: {kind: 'done', ok: true, error: null, hasResult: true, result: {rows: [1, 2]}},
          output: 'x\n',
          toolCalls: calls,
          elapsedMs: 5,
          sandbox: 'none',
        },
        execution,
      ),
    ]
    for (const outcome of cases) {
      expectNoPadding(structuredOutcome(outcome))
      inTextOrder(outcome)
    }
    expect(Object.keys(structuredOutcome(cases[3]!))).toEqual(['ok', 'error', 'output', 'trace'])
    expect(Object.keys(structuredOutcome(cases[5]!))).toEqual(['ok', 'output', 'result', 'trace', 'sandbox'])
  })

  it('an emitted None is a result, null; no emit() leaves none', () => {
    const emitted = composeOutcome(
      {
        end: {kind: 'done', ok: true, error: null, hasResult: true, result: null},
        output: '',
        toolCalls: [],
        elapsedMs: 5,
        sandbox: 'linux:bwrap+landlock+seccomp',
      },
      execution,
    )
    expect(structuredOutcome(emitted)).toEqual({ok: true, result: null})
    expect(structuredOutcome(outcomeOf([], ''))).toEqual({ok: true})
  })

  it('names the sandbox only when it is not the usual tier', () => {
    const tiers = (sandbox: string) =>
      structuredOutcome(
        composeOutcome(
          {
            end: {kind: 'done', ok: true, error: null, hasResult: false, result: null},
            output: '',
            toolCalls: [],
            elapsedMs: 1,
            sandbox,
          },
          execution,
        ),
      ).sandbox
    expect(tiers('linux:bwrap+landlock+seccomp')).toBeUndefined()
    expect(tiers('seatbelt')).toBeUndefined()
    expect(tiers('linux:landlock+seccomp')).toBe('linux:landlock+seccomp')
    expect(tiers('none')).toBe('none')
  })

  it('a failed call is said once: with its short arguments in the trace, or pointed at when printed', () => {
    const failed = call('mcp__a__x', false, {args: {path: '/nope', blob: 'z'.repeat(5000)}})
    const quiet = structuredOutcome(outcomeOf([failed], 'carried on\n'))
    expect(quiet.trace).toMatch(
      /^\[tool calls: 1, 1 failed; 1\.2s\]\n {2}failed: mcp__a__x \{"path":"\/nope","blob":"z+…z+"\}: mcp__a__x failed: not found$/,
    )
    expect(quiet.trace!.split('\n')[1]!.length).toBeLessThan(160)
    const printed = outcomeOf([failed], 'ToolError mcp__a__x failed: not found\n')
    const json = JSON.stringify(structuredOutcome(printed))
    expect(json.split('mcp__a__x failed: not found')).toHaveLength(2)
    expect(structuredOutcome(printed).trace).toMatch(/failed: mcp__a__x \{[^\n]*\} \(error above\)$/)
    expect(printed.text.split('mcp__a__x failed: not found')).toHaveLength(2)
    // Uncaught, it ended the program: the error says it, the trace points there.
    const uncaught = outcomeOf([failed], '', false)
    expect(structuredOutcome(uncaught).trace).toMatch(
      /failed: mcp__a__x [^\n]*: mcp__a__x failed: not found$/,
    )
  })

  it('60 successful calls printing 2 lines add little to the text', () => {
    const outcome = outcomeOf(
      Array.from({length: 60}, (_, i) => call('mcp__everything__echo', true, {args: {message: `m${i}`}})),
      'first\nsecond\n',
    )
    expect(overhead(outcome)).toBeLessThanOrEqual(STRUCTURE_ALLOWANCE_BYTES)
    expect(overhead(outcome)).toBeLessThan(60)
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
      expect(structuredOutcome(outcome).trace).toMatch(new RegExp(`^\\[tool calls: ${calls.length}[,;]`))
    }
  })

  it('with trace off, the text has no trace and neither has the JSON', () => {
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
    expect(structuredOutcome(outcome)).toEqual({ok: true, sandbox: 'none'})
  })

  it('allCalls lists every call, each cut as the trace cuts it; none when there were none', () => {
    const calls = Array.from({length: 120}, (_, i) =>
      call('mcp__a__x', true, {args: {i, big: 'b'.repeat(10_000)}}),
    )
    const listed = structuredOutcome(outcomeOf(calls), {allCalls: true}).calls!
    expect(listed).toHaveLength(120)
    expect(listed[119]).toMatchObject({tool: 'mcp__a__x', ok: true})
    expect(JSON.stringify(listed[0]!.args).length).toBeLessThanOrEqual(200)
    expect(structuredOutcome(outcomeOf([]), {allCalls: true})).not.toHaveProperty('calls')
  })

  it('output over the cap shows the cut note within the first 300 characters of the JSON', () => {
    const capture = new OutputCapture(65_536)
    for (let i = 0; i < 4000; i++) capture.write(Buffer.from(`row ${i}: ${'v'.repeat(40)}\n`))
    const json = JSON.stringify(structuredOutcome(outcomeOf([], capture.text())))
    expect(json.slice(0, 300)).toMatch(/bytes omitted/)
  })
})
