import {describe, expect, test} from 'vitest'

import type {ToolCallTrace} from './trace.js'

import {formatOutcome, type OutcomeSummary} from './format.js'

const base: OutcomeSummary = {
  ok: true,
  output: '',
  error: null,
  hasResult: false,
  result: null,
  toolCalls: [],
  elapsedMs: 2300,
  trace: 'summary',
}

const call = (tool: string, error?: string): ToolCallTrace =>
  error === undefined ? {tool, args: {}, ok: true, ms: 3} : {tool, args: {}, ok: false, ms: 3, error}

describe('formatOutcome (SPEC §8)', () => {
  test('a successful run shows its output without the final newline', () => {
    expect(formatOutcome({...base, output: 'a\nb\n'})).toBe('[Script executed successfully]\na\nb')
  })

  test('no output is said so', () => {
    expect(formatOutcome(base)).toBe('[Script executed successfully]\n(no output)')
  })

  test('an emitted value follows the output as JSON, even None', () => {
    expect(formatOutcome({...base, output: 'x\n', hasResult: true, result: {a: [1, 2]}})).toBe(
      '[Script executed successfully]\nx\n--- result ---\n{\n  "a": [\n    1,\n    2\n  ]\n}',
    )
    expect(formatOutcome({...base, hasResult: true, result: null})).toBe(
      '[Script executed successfully]\n(no output)\n--- result ---\nnull',
    )
  })

  test('the trace summary counts calls and failures, with the program time', () => {
    const text = formatOutcome({...base, toolCalls: [call('mcp__a__b'), call('mcp__x__y', 'not found')]})
    expect(text).toBe(
      '[Script executed successfully]\n(no output)\n[tool calls: 2, 1 failed; 2.3s]\n  failed: mcp__x__y: not found',
    )
    expect(formatOutcome({...base, toolCalls: [call('mcp__a__b')]})).toContain('[tool calls: 1; 2.3s]')
  })

  test('the trace line says how much of the results the program kept out of the context', () => {
    const calls = [call('mcp__a__b')]
    const printed = {...base, output: 'x'.repeat(1000) + '\n', toolCalls: calls}
    expect(formatOutcome({...printed, resultBytes: 50_276})).toContain(
      '[tool calls: 1; 2.3s; 48.1 KB kept out of context]',
    )
    expect(formatOutcome({...printed, resultBytes: 3 * 1024 * 1024 + 2000})).toContain(
      '; 3.0 MB kept out of context]',
    )
    // All of it printed, or under 1 KB kept out: not worth a mention.
    expect(formatOutcome({...printed, resultBytes: 900})).toContain('[tool calls: 1; 2.3s]')
    expect(formatOutcome({...printed, resultBytes: 2000})).toContain('[tool calls: 1; 2.3s]')
  })

  test('at most five failures are listed, the rest counted', () => {
    const calls = Array.from({length: 8}, (_, i) => call(`mcp__s__t${i}`, `error ${i}`))
    const lines = formatOutcome({...base, toolCalls: calls}).split('\n')
    expect(lines.filter((line) => line.startsWith('  failed: '))).toHaveLength(5)
    expect(lines.at(-1)).toBe('  ... 3 more failures')
    expect(lines).toContain('[tool calls: 8, 8 failed; 2.3s]')
  })

  test('a multi-line error is kept to one line in the trace', () => {
    const text = formatOutcome({...base, toolCalls: [call('mcp__a__b', 'first\n  second')]})
    expect(text).toContain('  failed: mcp__a__b: first second')
  })

  test('a failed call shows its short arguments, and its error only when the program did not print it', () => {
    const failed: ToolCallTrace = {
      tool: 'mcp__fs__read',
      args: {path: '/nope', blob: 'z'.repeat(1000)},
      ok: false,
      ms: 3,
      error: "ENOENT: no such file or directory, open '/nope'",
    }
    const quiet = formatOutcome({...base, output: 'carried on\n', toolCalls: [failed]})
    expect(quiet).toMatch(
      /\n {2}failed: mcp__fs__read \{"path":"\/nope","blob":"z+…z+"\}: ENOENT: no such file or directory, open '\/nope'$/,
    )
    expect(quiet.split('\n').at(-1)!.length).toBeLessThan(80 + 100)
    const printed = formatOutcome({...base, output: `oops: ${failed.error}\n`, toolCalls: [failed]})
    expect(printed.split('ENOENT')).toHaveLength(2)
    expect(printed).toMatch(/\n {2}failed: mcp__fs__read \{[^\n]*\} \(error above\)$/)
    // It ended the program: the error text says it.
    const uncaught = formatOutcome({
      ...base,
      ok: false,
      error: `Traceback...\nToolError: ${failed.error}`,
      toolCalls: [failed],
    })
    expect(uncaught.split('ENOENT')).toHaveLength(2)
    // A short error is said again: a few words may be in the output by chance.
    const short = {...failed, error: 'not found'}
    expect(formatOutcome({...base, output: 'not found\n', toolCalls: [short]})).toMatch(/: not found$/)
  })

  test('no trace lines without calls, or with trace: off', () => {
    expect(formatOutcome({...base, trace: 'off', toolCalls: [call('mcp__a__b')]})).toBe(
      '[Script executed successfully]\n(no output)',
    )
  })

  test('a failure shows the error, then the output before it, then the trace', () => {
    const text = formatOutcome({
      ...base,
      ok: false,
      output: 'partial\n',
      error: 'Traceback (most recent call last):\nNameError: x',
      toolCalls: [call('mcp__a__b')],
    })
    expect(text).toBe(
      '[Script execution failed]\nTraceback (most recent call last):\nNameError: x\n' +
        '--- output before the error ---\npartial\n[tool calls: 1; 2.3s]',
    )
  })

  test('a failure without output has no output section, and never shows a result', () => {
    const text = formatOutcome({
      ...base,
      ok: false,
      error: 'TimeoutError: Execution exceeded 120s limit',
      hasResult: true,
      result: 1,
    })
    expect(text).toBe('[Script execution failed]\nTimeoutError: Execution exceeded 120s limit')
  })
})

describe('formatOutcome: files kept from ./out/ (SPEC §14)', () => {
  const keptFiles = {
    dir: '/state/artifacts/run-1/out',
    files: [{name: 'report.csv', path: '/state/artifacts/run-1/out/report.csv', bytes: 2048}],
    notKept: [{name: 'evil', reason: 'link' as const}],
    moreNotKept: 0,
  }

  test('are listed after the output and the result, before the trace', () => {
    const text = formatOutcome({
      ...base,
      output: 'done\n',
      hasResult: true,
      result: 1,
      keptFiles,
      toolCalls: [call('mcp__a__b')],
    })
    expect(text).toBe(
      [
        '[Script executed successfully]',
        'done',
        '--- result ---',
        '1',
        '--- files kept in /state/artifacts/run-1/out ---',
        'report.csv (2 KiB)',
        'not kept: out/evil (a link: links are not followed)',
        '[tool calls: 1; 2.3s]',
      ].join('\n'),
    )
  })

  test('are listed after a failed run too: what the program wrote before failing is kept', () => {
    const text = formatOutcome({...base, ok: false, error: 'ValueError: x', output: 'a\n', keptFiles})
    expect(text.split('\n').slice(0, 6)).toEqual([
      '[Script execution failed]',
      'ValueError: x',
      '--- output before the error ---',
      'a',
      '--- files kept in /state/artifacts/run-1/out ---',
      'report.csv (2 KiB)',
    ])
  })

  test('add nothing when nothing was found in ./out/', () => {
    expect(formatOutcome({...base, keptFiles: {files: [], notKept: [], moreNotKept: 0}})).toBe(
      formatOutcome(base),
    )
  })
})
