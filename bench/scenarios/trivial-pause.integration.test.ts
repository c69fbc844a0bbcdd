// @tier integration
// The bench code itself, run once quickly against the built server: what it records, not how fast.
import {expect, test} from 'vitest'

import {Bench} from '../lib/bench.js'
import {trivialPause} from './trivial-pause.js'

test('the pause scenario records ptc-mcp beside its floor, measured in alternation, with its SPEC target', async () => {
  const bench = new Bench({quick: true, gateways: ['ptc-mcp'], downstreams: ['bench'], verbose: false})
  try {
    await trivialPause.run(bench)
  } finally {
    await bench.close()
  }
  const floor = bench.results.rows.find((r) => r.key === 'floor-pause/bench')
  const row = bench.results.rows.find((r) => r.key === 'pause/bench')
  expect(row?.target).toEqual({value: 2, comparison: '<=', of: 'ratio'})
  // One no-program answer before each of the three programs, and the row held against it.
  expect(floor?.figures['ptc-mcp']?.series.n).toBe(3)
  expect(row?.reference?.label).toBe('floor')
  expect(row?.reference?.series).toEqual(floor?.figures['ptc-mcp']?.series)
  const figure = row?.figures['ptc-mcp']
  expect(figure?.series.n).toBe(3)
  expect(figure?.ratio).toBeCloseTo(figure!.value / row!.reference!.value, 9)
  expect(typeof figure?.pass).toBe('boolean')
})
