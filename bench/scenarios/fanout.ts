// SPEC §11: 64 calls to a tool that answers after 50 ms, 8 at a time (the shipped
// max_concurrent_calls), against the ideal 400 ms; the whole tool call, as the client sees it.
import {addFigure, addRow, series} from '../lib/results.js'
import {explainMissing, interleaved, type Scenario, warmUp, withCode} from '../lib/scenario.js'

const N = 64
const SLEEP_MS = 50
const IDEAL_MS = (N / 8) * SLEEP_MS

export const fanOut: Scenario = {
  name: 'fanout',
  async run(bench) {
    for (const downstream of bench.downstreams) {
      const program = {kind: 'fanout', call: downstream.sleep(SLEEP_MS), n: N} as const
      const gateways = await bench.gatewaysFor(downstream)
      const runs = withCode(gateways, program, downstream)
      const notes = new Map(runs.map(({gateway, code}) => [gateway, code.note]))
      const codes = await warmUp(bench, new Map(runs.map(({gateway, code}) => [gateway, code.code])))
      const inProgram: number[] = []
      const times = await interleaved(bench, [...codes.keys()], bench.reps(5, 1), async (gateway) => {
        const run = await gateway.run(codes.get(gateway)!)
        if (gateway.name === 'ptc-mcp' && run.innerMs !== undefined) inProgram.push(run.innerMs)
        return run.ms
      })
      const row = addRow(bench.results, {
        key: `fanout/${downstream.name}`,
        scenario: `${N} × ${SLEEP_MS} ms tool, 8 at once`,
        downstream: downstream.name,
        reference: {label: 'ideal', value: IDEAL_MS, unit: 'ms'},
        target: {value: 1.25, comparison: '<=', of: 'ratio'},
      })
      for (const [gateway, samples] of times)
        addFigure(row, gateway.name, series(row.scenario, 'ms', samples), notes.get(gateway))
      explainMissing(bench, row, gateways)
      if (inProgram.length > 0)
        bench.results.details[`fanoutInProgram/${downstream.name}`] = series(
          `ptc-mcp: fan-out to ${downstream.name}, timed inside the program`,
          'ms',
          inProgram,
        )
      bench.log(`fan-out ${downstream.name} done`)
    }
  },
}
