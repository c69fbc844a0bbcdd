import {describe, expect, it} from 'vitest'

import type {ToolCallTrace} from './trace.js'

import {boundedCall, MAX_TRACE_ARGS_CHARS, traceArgs, traceError, traceTool} from './trace.js'

describe('the trace of a call', () => {
  it('cuts args and errors, and keeps every shortened args an object', () => {
    const args = traceArgs({content: 'z'.repeat(1_048_576)})
    expect(JSON.stringify(args).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
    expect(traceError(`line one\n${'e'.repeat(10_000)}`)).toMatch(/^line one e+…$/)
    expect(traceError(`line one\n${'e'.repeat(10_000)}`).length).toBe(300)
    expect(traceError('e'.repeat(1000), 50)).toBe(`${'e'.repeat(49)}…`)
  })

  it('a bounded call keeps its outcome and approval', () => {
    const call: ToolCallTrace = {
      tool: 'mcp__a__b',
      args: {s: 'x'.repeat(5000)},
      ok: false,
      ms: 3,
      error: 'no',
      approval: 'denied',
    }
    expect(boundedCall(call)).toMatchObject({
      tool: 'mcp__a__b',
      ok: false,
      ms: 3,
      error: 'no',
      approval: 'denied',
    })
    expect(JSON.stringify(boundedCall(call).args).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
  })
})

describe('args cut per value (SPEC §5)', () => {
  it('short values whole, long ones cut: a list of records shows readable records and a count', () => {
    const entities = Array.from({length: 6}, (_, i) => ({
      name: `Project ${i} Alpha`,
      entityType: 'project',
      observations: [`started in 202${i}`, 'owned by the platform team'],
    }))
    const traced = traceArgs({entities})
    expect(JSON.stringify(traced).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
    expect(traced).toEqual({
      entities: [
        {name: 'Project 0 Alpha', '…': '+2 keys'},
        {name: 'Project 1 Alpha', '…': '+2 keys'},
        {name: 'Project 2 Alpha', '…': '+2 keys'},
        '…(+3 items)',
      ],
    })
    const write = traceArgs({content: 'x'.repeat(5000), path: '/data/notes/today.txt', mode: 'w'})
    expect(write).toMatchObject({
      path: '/data/notes/today.txt',
      mode: 'w',
      content: expect.stringMatching(/…/),
    })
    expect(JSON.stringify(write).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
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
    // One object 5,000,000 times: as huge to walk as distinct ones, without seconds spent making them.
    // eslint-disable-next-line unicorn/no-new-array -- allocated at once: Array.from fills it one by one
    const args = {a: new Array<object>(5_000_000).fill({}), b: 1}
    const traced = traceArgs(args)
    expect(JSON.stringify(traced).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
    expect(traced).toMatchObject({
      b: 1,
      a: expect.arrayContaining([expect.stringMatching(/^…\(\+\d+ items\)$/)]),
    })
  })
})
