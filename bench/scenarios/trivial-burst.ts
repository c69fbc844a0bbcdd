// SPEC §11: 8 trivial programs sent at once, timed until all are answered; each burst after a
// 1 s pause (time enough for the shipped pool to refill), against bare interpreter starts taken
// in alternation with the bursts. ptc-mcp's first burst, before its pool has grown to a burst, is
// also reported on its own (after one untimed program per gateway).
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'

import {series} from '../lib/results.js'
import {addBareStartRow, bareStartsEachRound, interleaved, type Scenario, TRIVIAL} from '../lib/scenario.js'

export const BURST = 8

export const trivialBurst: Scenario = {
  name: 'burst',
  async run(bench) {
    for (const downstream of bench.downstreams) {
      const gateways = await bench.gatewaysFor(downstream)
      // One program first, untimed: the first burst then finds each gateway started (a fork
      // server loaded), as later ones do, with only its pool not grown yet.
      for (const gateway of gateways) await gateway.run(gateway.code(TRIVIAL, downstream)!.code)
      const bare = bareStartsEachRound(bench, bench.reps(4, 2))
      const rounds = {reps: bench.reps(8, 2), beforeRound: bare.beforeRound}
      const bursts = await interleaved(bench, gateways, rounds, async (gateway) => {
        await sleep(1000)
        const {code} = gateway.code(TRIVIAL, downstream)!
        const t0 = performance.now()
        await Promise.all(Array.from({length: BURST}, () => gateway.run(code)))
        return performance.now() - t0
      })
      addBareStartRow(
        bench,
        {
          key: 'burst',
          scenario: `${BURST} × print(1) at once, until all answered`,
          downstream,
          targetRatio: 2,
        },
        bare.samples,
        bursts,
      )
      const first = [...bursts].find(([gateway]) => gateway.name === 'ptc-mcp')?.[1][0]
      if (first !== undefined)
        bench.results.details[`burstFirst/${downstream.name}`] = series(
          `ptc-mcp: the first ${BURST} at once, ${downstream.name} (its pool not grown yet)`,
          'ms',
          [first],
        )
      bench.log(`burst ${downstream.name} done`)
    }
  },
}
