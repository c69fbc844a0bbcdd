// SPEC §11: a trivial program every ~20 ms: each sent 20 ms after the previous one was answered,
// the first two of a sequence (which may find a child made during the pause before) not recorded;
// against bare interpreter starts taken before each sequence.
import {setTimeout as sleep} from 'node:timers/promises'

import {addBareStartRow, bareStartsEachRound, interleaved, type Scenario, TRIVIAL} from '../lib/scenario.js'

export const GAP_MS = 20
const SKIPPED = 2

export const trivialCadence: Scenario = {
  name: 'cadence',
  async run(bench) {
    const length = bench.reps(20, 4)
    for (const downstream of bench.downstreams) {
      const gateways = await bench.gatewaysFor(downstream)
      const bare = bareStartsEachRound(bench, bench.reps(15, 5))
      const rounds = {reps: bench.reps(2, 1), beforeRound: bare.beforeRound}
      const sequences = await interleaved(bench, gateways, rounds, async (gateway) => {
        await sleep(1000)
        const times: number[] = []
        const {code} = gateway.code(TRIVIAL, downstream)!
        for (let i = 0; i < length; i++) {
          const {ms} = await gateway.run(code)
          if (i >= SKIPPED) times.push(ms)
          await sleep(GAP_MS)
        }
        return times
      })
      addBareStartRow(
        bench,
        {key: 'cadence', scenario: `print(1) every ~${GAP_MS} ms`, downstream, targetRatio: 0.25},
        bare.samples,
        sequences,
      )
      bench.log(`cadence ${downstream.name} done`)
    }
  },
}
