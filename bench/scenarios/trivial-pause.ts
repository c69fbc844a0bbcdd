// SPEC §11: a trivial program after a 300 ms pause (as after a client's thinking), against the
// floor: ptc-mcp's own answer to a tool call that runs no program (list_callable_tools with
// server), after the same pause, measured in alternation with the programs. Each peer's own
// no-program answer is in the floor row beside it. P after the same pause (a warmed Python forking
// a child that answers one line) is a detail beside it.
import {setTimeout as sleep} from 'node:timers/promises'

import type {Gateway} from '../lib/gateway.js'

import {addFloorRows, interleaved, record, type Scenario, TRIVIAL} from '../lib/scenario.js'

export const PAUSE_MS = 300

export const trivialPause: Scenario = {
  name: 'pause',
  async run(bench) {
    for (const downstream of bench.downstreams) {
      const gateways = await bench.gatewaysFor(downstream)
      const floors = new Map<Gateway, number[]>()
      const reps = bench.reps(15, 3)
      bench.freshProcess(reps, PAUSE_MS)
      const programs = await interleaved(bench, gateways, reps, async (gateway) => {
        await sleep(PAUSE_MS)
        record(floors, gateway, await gateway.roundTrip(downstream))
        await sleep(PAUSE_MS)
        return (await gateway.run(gateway.code(TRIVIAL, downstream)!.code)).ms
      })
      addFloorRows(
        bench,
        {
          key: 'pause',
          scenario: 'print(1)',
          when: `after a ${PAUSE_MS} ms pause`,
          downstream,
          targetRatio: 2,
          gateways,
        },
        floors,
        programs,
      )
      bench.log(`pause ${downstream.name} done`)
    }
  },
}
