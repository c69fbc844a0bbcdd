// @tier integration
import {afterAll, describe, expect, test} from 'vitest'

import type {Gateway} from './gateway.js'

import {Bench} from './bench.js'
import {addRow} from './results.js'
import {explainMissing, interleaved} from './scenario.js'

const bench = new Bench({quick: true, gateways: [], downstreams: [], verbose: false})
afterAll(() => bench.close())

/** A gateway that answers in `ms`, or fails with `error` from its second program on. */
function fake(name: Gateway['name'], error?: string): Gateway {
  let runs = 0
  return {
    name,
    connection: {} as Gateway['connection'],
    startMs: 0,
    code: () => ({code: ''}),
    async run() {
      if (error && ++runs > 1) throw new Error(`${error}\nmore detail`)
      return {ms: 1, text: ''}
    },
    roundTrip: async () => 1,
    async close() {},
  }
}

describe('a failing peer never fails the run', () => {
  test('it is noted, dropped from the rest of the scenario, and its dash says why', async () => {
    const ptc = fake('ptc-mcp')
    const peer = fake('my-cool-proxy', 'Lua script failed: Connection closed')
    const samples = await interleaved(bench, [ptc, peer], 3, async (gateway) => (await gateway.run('')).ms)
    expect(samples.get(ptc)).toEqual([1, 1, 1])
    // Its one sample before it failed is dropped with it: a figure is all its rounds or none.
    expect(samples.has(peer)).toBe(false)
    expect(bench.results.notes).toContain('my-cool-proxy: Lua script failed: Connection closed')
    const row = addRow(bench.results, {key: 'x', scenario: 'x', downstream: 'bench'})
    explainMissing(bench, row, [ptc, peer, {...fake('slop-mcp'), cannot: 'no such name in SLOP'}])
    expect(row.missing).toEqual({
      'my-cool-proxy': 'Lua script failed: Connection closed',
      'slop-mcp': 'no such name in SLOP',
    })
  })

  test('ptc-mcp failing fails the run', async () => {
    await expect(
      interleaved(
        bench,
        [fake('ptc-mcp', 'program failed')],
        2,
        async (gateway) => (await gateway.run('')).ms,
      ),
    ).rejects.toThrow(/program failed/)
  })
})
