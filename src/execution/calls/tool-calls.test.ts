import {describe, expect, test} from 'vitest'

import type {ResultMessage} from '../protocol/protocol.js'

import {LocalHost, standardTools} from '../../../test/helpers/local-host.js'
import {MAX_HELPER_CALLS} from '../../shared/limits.js'
import {MAX_TRACE_ARGS_CHARS} from '../outcome/trace.js'
import {budgetError} from './call-budget.js'
import {ToolCallBroker, type ToolCallLimits} from './tool-calls.js'

const LIMITS: ToolCallLimits = {
  maxCalls: 100,
  maxConcurrent: 8,
  callTimeoutMs: 5000,
  maxResultBytes: 1_048_576,
  maxQueuedBytes: 1_048_576,
}

function createBroker(limits: Partial<ToolCallLimits> = {}) {
  const host = new LocalHost(standardTools())
  const replies: ResultMessage[] = []
  const holds: boolean[] = []
  const waiters: {count: number; resolve: () => void}[] = []
  const broker = new ToolCallBroker(
    host,
    (message) => {
      replies.push(message)
      for (const waiter of waiters) if (replies.length >= waiter.count) waiter.resolve()
    },
    {...LIMITS, ...limits},
    {holdRequests: (hold) => holds.push(hold)},
  )
  const repliesReach = (count: number) =>
    new Promise<void>((resolve) => {
      if (replies.length >= count) resolve()
      else waiters.push({count, resolve})
    })
  return {host, replies, broker, repliesReach, holds}
}

describe('ToolCallBroker', () => {
  test('the budget refuses exactly the call after the last allowed one, without reaching the host', async () => {
    const {host, replies, broker, repliesReach} = createBroker({maxCalls: 3})
    for (let id = 1; id <= 5; id++) broker.onCall(id, 'mcp__local__echo', {i: id})
    await repliesReach(5)
    const refused = replies.filter((reply) => !reply.ok).map((reply) => reply.id)
    expect(refused).toEqual([4, 5])
    expect(replies.find((reply) => reply.id === 4)).toMatchObject({
      error: expect.stringMatching(/budget exhausted/),
    })
    expect(host.calls).toHaveLength(3)
    expect(broker.calls).toHaveLength(3)
  })

  test('the budget counts calls sent: queued calls refused at once are not counted as made', async () => {
    const {host, replies, broker, repliesReach} = createBroker({maxCalls: 3, maxConcurrent: 2})
    for (let id = 1; id <= 6; id++) broker.onCall(id, 'mcp__local__sleep', {ms: 20, id})
    await repliesReach(6)
    expect(host.calls).toHaveLength(3)
    const refused = replies.filter((reply) => !reply.ok)
    expect(refused.map((reply) => reply.id)).toEqual([4, 5, 6])
    for (const reply of refused)
      expect(reply).toMatchObject({
        kind: 'budget',
        error:
          'tool call budget exhausted: this program sent 3 calls (execution.max_tool_calls: 3) and 3 more were refused, never sent; do more per call (filters, batches) or split the work into several programs',
      })
    // A later call is refused at once, the count going on.
    broker.onCall(7, 'mcp__local__echo', {})
    await repliesReach(7)
    expect(replies.at(-1)).toMatchObject({
      id: 7,
      error: expect.stringMatching(/sent 3 calls .* and 4 more were refused/),
    })
  })

  test('the budget error names the tools of the same server that do more per call', () => {
    const host = new LocalHost({
      read_file: () => 1,
      read_multiple_files: () => 1,
      search_files: () => 1,
      write_file: () => 1,
    })
    expect(budgetError(host, 'mcp__local__read_file', {sent: 100, refused: 1, max: 100})).toBe(
      'tool call budget exhausted: this program sent 100 calls (execution.max_tool_calls: 100) and 1 more was refused, never sent; do more per call (filters, batches) or split the work into several programs; local also offers mcp__local__read_multiple_files (takes lists), mcp__local__search_files (filters)',
    )
  })

  test('helpers are answered at once and not counted', async () => {
    const {host, replies, broker, repliesReach} = createBroker({maxCalls: 1})
    broker.onHelper(1, 'list_callable_tools', {})
    broker.onHelper(2, 'server_status', {})
    broker.onHelper(3, 'inspect_tool', {tool_name: 'mcp__local__echo'})
    broker.onHelper(4, 'inspect_tool', {tool_name: 'mcp__local__ecko'})
    broker.onCall(5, 'mcp__local__echo', {})
    await repliesReach(5)
    expect(replies[0]).toMatchObject({
      ok: true,
      value: ['mcp__local__big', 'mcp__local__echo', 'mcp__local__fail', 'mcp__local__sleep'],
    })
    expect(replies[1]).toMatchObject({ok: true, value: [{name: 'local', connected: true}]})
    expect(replies[2]).toMatchObject({
      ok: true,
      value: {name: 'mcp__local__echo', signature: expect.any(String)},
    })
    expect(replies[3]).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Did you mean mcp__local__echo/),
    })
    expect(replies[4]).toMatchObject({id: 5, ok: true})
    expect(host.calls).toHaveLength(1)
  })

  test('no more than maxConcurrent calls are in flight; the rest start in order', async () => {
    const {host, broker, repliesReach} = createBroker({maxConcurrent: 3})
    for (let id = 1; id <= 10; id++) broker.onCall(id, 'mcp__local__sleep', {ms: 20, id})
    await repliesReach(10)
    expect(host.peak).toBe(3)
    expect(host.calls.map((call) => call.args.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  test('the per-call timeout and result limit are passed to the host', async () => {
    const {host, broker, replies, repliesReach} = createBroker({callTimeoutMs: 30, maxResultBytes: 1234})
    broker.onCall(1, 'mcp__local__sleep', {ms: 10_000})
    await repliesReach(1)
    expect(host.calls[0]?.options).toMatchObject({timeoutMs: 30, maxResultBytes: 1234})
    expect(replies[0]).toMatchObject({ok: false, error: 'timed out after 30 ms'})
    expect(broker.calls[0]).toMatchObject({
      tool: 'mcp__local__sleep',
      ok: false,
      error: 'timed out after 30 ms',
    })
  })

  test('failures are traced with their message', async () => {
    const {broker, repliesReach} = createBroker()
    broker.onCall(1, 'mcp__local__fail', {message: 'no such ticker'})
    broker.onCall(2, 'mcp__local__nope', {})
    await repliesReach(2)
    expect(broker.calls).toEqual([
      {
        tool: 'mcp__local__fail',
        args: {message: 'no such ticker'},
        ok: false,
        ms: expect.any(Number),
        error: 'no such ticker',
      },
      {
        tool: 'mcp__local__nope',
        args: {},
        ok: false,
        ms: expect.any(Number),
        error: expect.stringMatching(/Unknown tool/),
      },
    ])
  })

  test('a queued call the program cancels never reaches the host', async () => {
    const {host, broker, repliesReach} = createBroker({maxConcurrent: 1})
    broker.onCall(1, 'mcp__local__sleep', {ms: 20})
    broker.onCall(2, 'mcp__local__echo', {which: 'cancelled'})
    broker.onCall(3, 'mcp__local__echo', {which: 'kept'})
    broker.onCancel(2)
    await repliesReach(2)
    expect(host.calls.map((call) => call.args.which ?? 'sleep')).toEqual(['sleep', 'kept'])
  })

  test('close aborts the calls in flight and records them as failed', async () => {
    const {host, broker, replies} = createBroker()
    const reached = new Promise<void>((resolve) => {
      host.onCall(() => resolve())
    })
    broker.onCall(1, 'mcp__local__sleep', {ms: 10_000})
    await reached
    broker.close()
    expect(host.calls[0]?.options.signal?.aborted).toBe(true)
    expect(broker.calls).toEqual([
      expect.objectContaining({ok: false, error: 'the program ended before the call finished'}),
    ])
    broker.onCall(2, 'mcp__local__echo', {})
    expect(replies).toHaveLength(0)
  })

  test(`helpers are bounded: the ${MAX_HELPER_CALLS + 1}th is refused`, async () => {
    const {replies, broker, repliesReach} = createBroker()
    for (let id = 1; id <= MAX_HELPER_CALLS + 2; id++) broker.onHelper(id, 'server_status', {})
    await repliesReach(MAX_HELPER_CALLS + 2)
    expect(replies.filter((reply) => reply.ok)).toHaveLength(MAX_HELPER_CALLS)
    expect(replies.at(-1)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^helper budget exhausted: a program may call .* 1000 times/),
    })
  })

  test('queued calls over the byte bound hold the child back until the queue shrinks', async () => {
    const {host, broker, holds, repliesReach} = createBroker({maxConcurrent: 1, maxQueuedBytes: 250})
    broker.onCall(1, 'mcp__local__sleep', {ms: 20}, 100)
    broker.onCall(2, 'mcp__local__echo', {}, 100)
    broker.onCall(3, 'mcp__local__echo', {}, 100)
    expect(holds).toEqual([])
    broker.onCall(4, 'mcp__local__echo', {}, 100)
    expect(holds).toEqual([true])
    await repliesReach(4)
    expect(holds).toEqual([true, false])
    expect(host.calls).toHaveLength(4)
  })

  test('the trace records the head of huge arguments, names and errors, not the whole', async () => {
    const {broker, repliesReach} = createBroker()
    const huge = Array.from({length: 1_000_000}, () => ({}))
    broker.onCall(1, `mcp__local__${'n'.repeat(1_000_000)}`, {a: huge})
    broker.onCall(2, 'mcp__local__fail', {message: 'e'.repeat(1_000_000)})
    await repliesReach(2)
    const [first, second] = [...broker.calls].sort((a, b) => a.tool.length - b.tool.length)
    expect(second?.tool).toBe(`mcp__local__${'n'.repeat(187)}…`)
    expect(JSON.stringify(second?.args).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
    expect(second?.error?.length).toBeLessThanOrEqual(300)
    expect(first).toMatchObject({tool: 'mcp__local__fail', error: `${'e'.repeat(299)}…`})
    expect(JSON.stringify(first?.args).length).toBeLessThanOrEqual(MAX_TRACE_ARGS_CHARS)
  })
})
