import {describe, expect, it} from 'vitest'

import type {ToolCallTrace} from './format.js'

import {
  boundedTrace,
  MAX_TRACE_ARGS_CHARS,
  MAX_TRACED_CALLS,
  traceArgs,
  traceError,
  traceTool,
} from './trace.js'

describe('the trace in structured content (SPEC §5)', () => {
  it('lists the first 50 calls, then counts the others per tool, most called first', () => {
    const calls: ToolCallTrace[] = Array.from({length: 130}, (_, i) => ({
      tool: i % 3 === 0 ? 'mcp__a__x' : 'mcp__a__y',
      args: {i},
      ok: i % 10 !== 0,
      ms: 1,
      ...(i % 10 === 0 ? {error: 'boom'} : {}),
    }))
    const trace = boundedTrace(calls)
    expect(trace.tool_calls).toHaveLength(MAX_TRACED_CALLS)
    expect(trace.tool_calls[49]!.args).toEqual({i: 49})
    expect(trace.more_tool_calls).toEqual([
      {tool: 'mcp__a__y', calls: 53, failed: 5},
      {tool: 'mcp__a__x', calls: 27, failed: 3},
    ])
    expect(boundedTrace(calls.slice(0, 50)).more_tool_calls).toBeUndefined()
  })

  it('cuts args and errors, and keeps every shortened args an object', () => {
    const args = traceArgs({content: 'z'.repeat(1_048_576)})
    expect(JSON.stringify(args).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
    expect(traceError(`line one\n${'e'.repeat(10_000)}`)).toMatch(/^line one e+…$/)
    expect(traceError(`line one\n${'e'.repeat(10_000)}`).length).toBe(300)
  })

  it('sums the tools after the first 50 under one entry', () => {
    const calls: ToolCallTrace[] = Array.from({length: 200}, (_, i) => ({
      tool: `mcp__a__t${i}`,
      args: {},
      ok: true,
      ms: 0,
    }))
    const more = boundedTrace(calls).more_tool_calls!
    expect(more).toHaveLength(50)
    expect(more.at(-1)).toEqual({tool: '(other tools)', calls: 101, failed: 0})
    expect(more.reduce((sum, count) => sum + count.calls, 0)).toBe(150)
  })
})

describe('what the trace keeps of a call (SPEC §15)', () => {
  it('huge tool names and errors are cut; a long error on one line too', () => {
    expect(traceTool(`mcp__a__${'n'.repeat(1_000_000)}`)).toBe(`mcp__a__${'n'.repeat(191)}…`)
    expect(traceTool('mcp__a__b')).toBe('mcp__a__b')
    expect(traceError('e'.repeat(10_000_000))).toBe(`${'e'.repeat(299)}…`)
    expect(traceError('short')).toBe('short')
  })

  it('huge arguments are cut without walking them all, and keep their keys', () => {
    const args = {a: Array.from({length: 5_000_000}, () => ({})), b: 1}
    const traced = traceArgs(args)
    expect(JSON.stringify(traced).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
    expect(traced).toMatchObject({
      b: 1,
      a: expect.arrayContaining([expect.stringMatching(/^…\(\+\d+ items\)$/)]),
    })
  })
})
