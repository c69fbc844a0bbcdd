// SPEC §11: a trivial program after a 300 ms pause (as after a client's thinking), against bare
// interpreter starts taken in alternation with it; and the MCP round trip after the same pause.
import {setTimeout as sleep} from 'node:timers/promises'

import {series} from '../lib/results.js'
import {addBareStartRow, bareStartsEachRound, interleaved, type Scenario, TRIVIAL} from '../lib/scenario.js'

export const PAUSE_MS = 300

export const trivialPause: Scenario = {
  name: 'pause',
  async run(bench) {
    for (const downstream of bench.downstreams) {
      const gateways = await bench.gatewaysFor(downstream)
      const bare = bareStartsEachRound(bench, bench.reps(4, 2))
      const rounds = {reps: bench.reps(15, 3), beforeRound: bare.beforeRound}
      const programs = await interleaved(bench, gateways, rounds, async (gateway) => {
        await sleep(PAUSE_MS)
        return (await gateway.run(gateway.code(TRIVIAL, downstream)!.code)).ms
      })
      addBareStartRow(
        bench,
        {key: 'pause', scenario: `print(1) after a ${PAUSE_MS} ms pause`, downstream, targetRatio: 0.15},
        bare.samples,
        programs,
      )
      if (downstream !== bench.downstreams[0]) continue
      // The floor under the figure: a request the gateway answers itself, after the same pause.
      const floors = await interleaved(bench, gateways, bench.reps(10, 2), async (gateway) => {
        await sleep(PAUSE_MS)
        return gateway.roundTrip()
      })
      for (const [gateway, times] of floors)
        bench.results.details[`roundTrip/${gateway.name}`] = series(
          `${gateway.name}: MCP round trip, no program, after a ${PAUSE_MS} ms pause`,
          'ms',
          times,
        )
      bench.log(`pause ${downstream.name} done`)
    }
  },
}
