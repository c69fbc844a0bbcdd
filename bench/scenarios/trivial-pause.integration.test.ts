// The bench code itself, run once quickly against the built server: what it records, not how fast.
import {expect, test} from 'vitest'

import {Bench} from '../lib/bench.js'
import {trivialPause} from './trivial-pause.js'

test('the pause scenario records ptc-mcp beside a bare interpreter start, with its SPEC target', async () => {
  const bench = new Bench({quick: true, gateways: ['ptc-mcp'], downstreams: ['bench'], verbose: false})
  try {
    await trivialPause.run(bench)
  } finally {
    await bench.close()
  }
  const row = bench.results.rows.find((r) => r.key === 'pause/bench')
  expect(row?.target).toEqual({value: 0.15, comparison: '<=', of: 'ratio'})
  // Two bare starts before each of the three rounds.
  expect(row?.reference?.series?.n).toBe(6)
  const figure = row?.figures['ptc-mcp']
  expect(figure?.series.n).toBe(3)
  expect(figure?.ratio).toBeCloseTo(figure!.value / row!.reference!.value, 9)
  expect(typeof figure?.pass).toBe('boolean')
  expect(bench.results.details['roundTrip/ptc-mcp']?.n).toBe(2)
})
