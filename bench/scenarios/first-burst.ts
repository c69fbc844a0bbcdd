// SPEC §11: the first burst of eight after 60 s with no program (a session's first parallel
// calls), ≤ 1.5× the warm eight. Every gateway of every downstream is left idle for the quiet
// period at once; then each gateway gets one burst, in turn, each SETTLE_MS after the one before,
// and a warm burst SETTLE_MS after its first. The reference is ptc-mcp's warm bursts; bare
// interpreter starts taken before the bursts are a detail.
// With --quick the quiet period is shorter, as the row and a note say.
import {setTimeout as sleep} from 'node:timers/promises'

import type {Bench} from '../lib/bench.js'
import type {Downstream} from '../lib/downstreams.js'
import type {Gateway} from '../lib/gateway.js'

import {addFigure, addRow, measuredReference, series} from '../lib/results.js'
import {explainMissing, type Scenario} from '../lib/scenario.js'
import {BURST, burst} from './trivial-burst.js'

/** One burst into `measured`; a peer that fails is noted and dropped (bench.leftOut). */
async function burstOrDrop(
  bench: Bench,
  gateway: Gateway,
  downstream: Downstream,
  measured: Map<Gateway, number[]>,
): Promise<void> {
  try {
    measured.set(gateway, [...(measured.get(gateway) ?? []), await burst(gateway, downstream)])
  } catch (error) {
    bench.leftOut(gateway, error)
    measured.delete(gateway)
  }
}

export const QUIET_S = 60
/**
 * Quiet periods in a full run: three, so that the median is a sample and not the mean of two (the
 * first burst after idle varies most of all rows: 10.6–21.4 ms where the warm eight took 8.3–16.3 ms).
 */
const ROUNDS = 3
const QUICK_QUIET_S = 5
/** After each gateway's burst, before the next one's: what the burst set off (refills, teardown) ends. */
const SETTLE_MS = 2000

export const firstBurst: Scenario = {
  name: 'first-burst',
  async run(bench) {
    const quietS = bench.options.quick ? QUICK_QUIET_S : QUIET_S
    if (quietS !== QUIET_S)
      bench.note(`--quick: the first burst comes after ${quietS} s with no program, not ${QUIET_S} s`)
    const each = await Promise.all(
      bench.downstreams.map(async (downstream) => ({
        downstream,
        gateways: await bench.gatewaysFor(downstream),
      })),
    )
    const bursts = new Map(each.map(({downstream}) => [downstream, new Map<Gateway, number[]>()]))
    const warm = new Map(each.map(({downstream}) => [downstream, new Map<Gateway, number[]>()]))
    for (let round = 0; round < bench.reps(ROUNDS, 1); round++) {
      bench.log(`first burst: ${quietS} s with no program`)
      await sleep(quietS * 1000)
      bench.bareStart(bench.reps(4, 2))
      for (const {downstream, gateways} of each) {
        const measured = bursts.get(downstream)!
        for (const gateway of gateways) {
          if (round !== 0 && !measured.has(gateway)) continue
          await burstOrDrop(bench, gateway, downstream, measured)
          // The next gateway's burst must not meet this one's aftermath (ptc-mcp forks 8
          // replacements at once when its burst ends): measured right after it, server-everything's
          // ptc-mcp took 88-146 ms where it took 42-72 ms alone (2 cores, load 7).
          await sleep(SETTLE_MS)
          if (!measured.has(gateway)) continue
          await burstOrDrop(bench, gateway, downstream, warm.get(downstream)!)
          await sleep(SETTLE_MS)
        }
      }
    }
    for (const {downstream, gateways} of each) {
      const warmPtc = [...warm.get(downstream)!].find(([gateway]) => gateway.name === 'ptc-mcp')?.[1]
      const row = addRow(bench.results, {
        key: `firstBurst/${downstream.name}`,
        scenario: `the first ${BURST} × print(1) at once after ${quietS} s with no program`,
        downstream: downstream.name,
        reference:
          warmPtc &&
          measuredReference('warm eight', series(`ptc-mcp: ${BURST} at once, warm`, 'ms', warmPtc)),
        target: {value: 1.5, comparison: '<=', of: 'ratio'},
      })
      for (const [gateway, times] of bursts.get(downstream)!)
        addFigure(row, gateway.name, series(row.scenario, 'ms', times))
      explainMissing(bench, row, gateways)
    }
    bench.log('first burst done')
  },
}
