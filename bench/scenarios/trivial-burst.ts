// SPEC §11: 8 trivial programs sent at once, timed until all are answered; each burst after a
// 1 s pause (time enough for the shipped pool to refill), against bare interpreter starts taken
// in alternation with the bursts. The first burst after a quiet minute is first-burst.ts.
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'

import type {Downstream} from '../lib/downstreams.js'
import type {Gateway} from '../lib/gateway.js'

import {addBareStartRow, bareStartsEachRound, interleaved, type Scenario, TRIVIAL} from '../lib/scenario.js'

export const BURST = 8

/** `BURST` trivial programs sent at once: milliseconds until the last is answered. */
export async function burst(gateway: Gateway, downstream: Downstream): Promise<number> {
  const {code} = gateway.code(TRIVIAL, downstream)!
  const t0 = performance.now()
  await Promise.all(Array.from({length: BURST}, () => gateway.run(code)))
  return performance.now() - t0
}

export const trivialBurst: Scenario = {
  name: 'burst',
  async run(bench) {
    for (const downstream of bench.downstreams) {
      const gateways = await bench.gatewaysFor(downstream)
      // One program first, untimed: each gateway started (a fork server loaded) before its bursts.
      for (const gateway of gateways) await gateway.run(gateway.code(TRIVIAL, downstream)!.code)
      const bare = bareStartsEachRound(bench, bench.reps(4, 2))
      const rounds = {reps: bench.reps(8, 2), beforeRound: bare.beforeRound}
      const bursts = await interleaved(bench, gateways, rounds, async (gateway) => {
        await sleep(1000)
        return burst(gateway, downstream)
      })
      addBareStartRow(
        bench,
        {
          key: 'burst',
          scenario: `${BURST} × print(1) at once, until all answered (each after 1 s)`,
          downstream,
          targetRatio: 2,
          gateways,
        },
        bare.samples,
        bursts,
      )
      bench.log(`burst ${downstream.name} done`)
    }
  },
}
