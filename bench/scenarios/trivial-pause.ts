// SPEC §11: a trivial program after a 300 ms pause (as after a client's thinking), against a
// bare interpreter start measured just before; and the MCP round trip after the same pause.
import {setTimeout as sleep} from 'node:timers/promises'

import {addFigure, addRow, measuredReference, series} from '../lib/results.js'
import {interleaved, type Scenario, TRIVIAL} from '../lib/scenario.js'

export const PAUSE_MS = 300

export const trivialPause: Scenario = {
  name: 'pause',
  async run(bench) {
    for (const downstream of bench.downstreams) {
      const gateways = await bench.gatewaysFor(downstream)
      const row = addRow(bench.results, {
        key: `pause/${downstream.name}`,
        scenario: `print(1) after a ${PAUSE_MS} ms pause`,
        downstream: downstream.name,
        reference: measuredReference('bare start', bench.bareStart(bench.reps(30, 5))),
        target: {value: 0.15, comparison: '<=', of: 'ratio'},
      })
      const programs = await interleaved(bench, gateways, bench.reps(15, 3), async (gateway) => {
        await sleep(PAUSE_MS)
        return (await gateway.run(gateway.code(TRIVIAL, downstream)!.code)).ms
      })
      for (const [gateway, times] of programs) addFigure(row, gateway.name, series(row.scenario, 'ms', times))
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
