/**
 * Structured content of execute_program stays within its bound (SPEC §5): the text plus at most
 * 600 bytes (the failed calls listed with short arguments, in both); and the server does
 * not hold the arguments of a program's calls once they are made (SPEC §15).
 */
import {afterAll, beforeAll, expect, test} from 'vitest'

import {ProgramEngine} from '../../src/execution/engine/engine.js'
import {STRUCTURE_ALLOWANCE_BYTES, structuredOutcome} from '../../src/execution/outcome/structured-outcome.js'
import {MAX_TRACE_ARGS_CHARS, MAX_TRACE_ERROR_CHARS} from '../../src/execution/outcome/trace.js'
import {closeTestEngines, createTestEngine} from '../helpers/engine.js'
import {LocalHost} from '../helpers/local-host.js'

let engine: ProgramEngine
const host = new LocalHost({
  size: (args) => ({chars: String(args.content).length}),
  fail() {
    throw new Error(`refused: ${'because '.repeat(10_000)}`)
  },
})
// The host's own record of calls would keep every argument: this test holds none.
host.onCall(() => {
  host.calls.length = 0
})

beforeAll(async () => {
  engine = await createTestEngine(host, {timeout_seconds: 120, max_tool_calls: 1000})
})

afterAll(closeTestEngines)

test('500 calls with 1 MB arguments: structured content is the text plus a bounded trace', async () => {
  const outcome = await engine.run(
    [
      'big = "x" * 1_000_000',
      'total = 0',
      'for i in range(480):',
      '    total += (await mcp__local__size(content=big, i=i))["chars"]',
      'for i in range(20):',
      '    try:',
      '        await mcp__local__fail(content=big)',
      '    except ToolError:',
      '        pass',
      'print(total)',
    ].join('\n'),
  )
  expect(outcome.error).toBeNull()
  expect(outcome.output).toBe('480000000\n')
  expect(outcome.tool_calls).toHaveLength(500)

  const structured = structuredOutcome(outcome)
  const failedLines = structured.trace!.split('\n').filter((line) => line.startsWith('  failed: '))
  expect(structured.trace!.split('\n')[0]).toMatch(/^\[tool calls: 500, 20 failed; /)
  expect(failedLines).toHaveLength(5)
  for (const line of failedLines) {
    const args = /^ {2}failed: mcp__local__fail (\{.*?\}): refused/.exec(line)?.[1]
    expect(args, line).toBeDefined()
    expect(JSON.parse(args!)).toHaveProperty('content', expect.stringMatching(/^x+…x+$/))
    expect(args!.length).toBeLessThanOrEqual(80)
  }
  const escaping = JSON.stringify(outcome.output).length - outcome.output.length
  expect(Buffer.byteLength(JSON.stringify(structured)) - escaping).toBeLessThanOrEqual(
    Buffer.byteLength(outcome.text) + STRUCTURE_ALLOWANCE_BYTES,
  )
  // `run --json` lists every call, each cut as the trace cuts it.
  const listed = structuredOutcome(outcome, {allCalls: true}).calls!
  expect(listed).toHaveLength(500)
  for (const call of listed)
    expect(JSON.stringify(call.args).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
  const perCall = 100 + MAX_TRACE_ARGS_CHARS + MAX_TRACE_ERROR_CHARS
  // Even the in-memory record of all 500 calls is small: the arguments were cut when recorded.
  expect(JSON.stringify(outcome.tool_calls).length).toBeLessThan(500 * perCall)
})

test('failed calls in the trace carry a cut error, one line', async () => {
  const outcome = await engine.run(
    ['try:', '    await mcp__local__fail(content="a")', 'except ToolError as e:', '    print("caught")'].join(
      '\n',
    ),
  )
  const [call] = structuredOutcome(outcome, {allCalls: true}).calls!
  expect(call).toMatchObject({tool: 'mcp__local__fail', args: {content: 'a'}, ok: false})
  const failed = structuredOutcome(outcome).trace!.split('\n')[1]
  expect(failed).toMatch(/^ {2}failed: mcp__local__fail \{"content":"a"\}: refused: because because .*…$/)
  expect(call!.error!.length).toBe(MAX_TRACE_ERROR_CHARS)
  expect(call!.error).toMatch(/^refused: because because .*…$/)
})
