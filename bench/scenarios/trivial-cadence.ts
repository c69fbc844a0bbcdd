// SPEC §11: a trivial program every ~20 ms: each sent 20 ms after the previous one was answered,
// the first two of a sequence (which may find a child made during the pause before) not recorded;
// against the floor at the same cadence: a sequence of ptc-mcp's no-program answers
// (list_callable_tools with server) before each sequence of programs, likewise every ~20 ms; the
// target is F + 1.5 P, P (a warmed Python forking a child that answers one line) taken back to back
// at the start of every round.
import {setTimeout as sleep} from 'node:timers/promises'

import type {Gateway} from '../lib/gateway.js'

import {series} from '../lib/results.js'
import {addFloorRows, interleaved, record, type Scenario, TRIVIAL} from '../lib/scenario.js'

export const GAP_MS = 20
const SKIPPED = 2

/** `length` calls, each `GAP_MS` after the previous answer; the first `SKIPPED` not returned. */
async function sequence(length: number, call: () => Promise<number>): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < length; i++) {
    const ms = await call()
    if (i >= SKIPPED) times.push(ms)
    await sleep(GAP_MS)
  }
  return times
}

export const trivialCadence: Scenario = {
  name: 'cadence',
  async run(bench) {
    const length = bench.reps(20, 4)
    for (const downstream of bench.downstreams) {
      const gateways = await bench.gatewaysFor(downstream)
      const floors = new Map<Gateway, number[]>()
      const fresh: number[] = []
      const beforeRound = async () => {
        fresh.push(...bench.freshProcess(length, 0).ms)
      }
      const rounds = {reps: bench.reps(3, 1), beforeRound}
      const programs = await interleaved(bench, gateways, rounds, async (gateway) => {
        await sleep(1000)
        record(floors, gateway, await sequence(length, () => gateway.roundTrip(downstream)))
        const {code} = gateway.code(TRIVIAL, downstream)!
        return sequence(length, async () => (await gateway.run(code)).ms)
      })
      addFloorRows(
        bench,
        {
          key: 'cadence',
          scenario: 'print(1)',
          when: `every ~${GAP_MS} ms`,
          downstream,
          targetRatio: 1,
          gateways,
          reference(floor) {
            const p = series('P back to back', 'ms', fresh).median
            return {label: `F + 1.5 P (P ${p.toFixed(2)} ms)`, value: floor.median + 1.5 * p, unit: 'ms'}
          },
        },
        floors,
        programs,
      )
      bench.log(`cadence ${downstream.name} done`)
    }
  },
}
