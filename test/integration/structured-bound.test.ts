/**
 * Structured content of execute_program stays within its bound (SPEC §5): the text content plus a
 * trace of at most 50 calls, each `args` cut to 200 characters, then counts per tool; and the
 * server does not hold the arguments of a program's calls once they are made (SPEC §15).
 */
import {afterAll, beforeAll, expect, test} from 'vitest'

import {executionSchema} from '../../src/config/schema.js'
import {ProgramEngine} from '../../src/execution/engine.js'
import {structuredOutcome} from '../../src/execution/outcome.js'
import {resolvePython} from '../../src/execution/python.js'
import {MAX_TRACE_ARGS_CHARS, MAX_TRACE_ERROR_CHARS, MAX_TRACED_CALLS} from '../../src/execution/trace.js'
import {silentLogger} from '../../src/log.js'
import {noneBackend} from '../../src/sandbox/none.js'
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
  engine = new ProgramEngine({
    execution: executionSchema.parse({
      timeout_seconds: 120,
      warm_pool: 0,
      max_tool_calls: 1000,
      sandbox: 'none',
    }),
    host,
    backend: noneBackend,
    python: await resolvePython(process.env.PTC_MCP_TEST_PYTHON ?? 'python3'),
    logger: silentLogger,
  })
})

afterAll(() => engine.close())

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
  expect(structured.tool_calls).toHaveLength(MAX_TRACED_CALLS)
  for (const call of structured.tool_calls) {
    expect(JSON.stringify(call.args).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
    expect(call.args).toHaveProperty('content', expect.stringMatching(/^x+…x+$/))
  }
  expect(structured.more_tool_calls).toEqual([
    {tool: 'mcp__local__size', calls: 430, failed: 0},
    {tool: 'mcp__local__fail', calls: 20, failed: 20},
  ])
  // What each listed call may add to the text: its tool, args, error and the JSON around them.
  const perCall = 100 + MAX_TRACE_ARGS_CHARS + MAX_TRACE_ERROR_CHARS
  const bound = Buffer.byteLength(outcome.text) + MAX_TRACED_CALLS * perCall + 2 * 100
  expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(bound)
  // Even the in-memory record of all 500 calls is small: the arguments were cut when recorded.
  expect(JSON.stringify(outcome.tool_calls).length).toBeLessThan(500 * perCall)
})

test('failed calls in the trace carry a cut error, one line', async () => {
  const outcome = await engine.run(
    ['try:', '    await mcp__local__fail(content="a")', 'except ToolError as e:', '    print("caught")'].join(
      '\n',
    ),
  )
  const [call] = structuredOutcome(outcome).tool_calls
  expect(call).toMatchObject({tool: 'mcp__local__fail', args: {content: 'a'}, ok: false})
  expect(call!.error!.length).toBe(MAX_TRACE_ERROR_CHARS)
  expect(call!.error).toMatch(/^refused: because because .*…$/)
})
