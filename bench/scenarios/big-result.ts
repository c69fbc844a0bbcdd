import {MiB} from '../lib/paths.js'
// SPEC §11: a 16 MiB tool result reaches the program and a summary of it comes back in under
// 1.5 s; the gateway process's peak RSS grows by less than 4× the result. Only downstreams with
// a tool that makes such a result (the bench's own).
import {memory, resetPeak} from '../lib/proc.js'
import {addFigure, addRow, series} from '../lib/results.js'
import {explainMissing, interleaved, type Scenario, warmUp, withCode} from '../lib/scenario.js'

const BIG_BYTES = 16 * MiB

export const bigResult: Scenario = {
  name: 'big',
  async run(bench) {
    for (const downstream of bench.downstreams) {
      if (!downstream.big) continue
      const program = {kind: 'big', call: downstream.big(BIG_BYTES)} as const
      const gateways = await bench.gatewaysFor(downstream)
      const runs = withCode(gateways, program, downstream)
      // The bench server builds (and keeps) its 16 MiB answer on the first call.
      const codes = await warmUp(bench, new Map(runs.map(({gateway, code}) => [gateway, code.code])))
      const growth = new Map<string, number[]>()
      const latency = await interleaved(bench, [...codes.keys()], bench.reps(5, 1), async (gateway) => {
        const pid = gateway.connection.pid!
        const before = memory(pid)
        resetPeak(pid)
        const {ms} = await gateway.run(codes.get(gateway)!)
        growth.set(gateway.name, [...(growth.get(gateway.name) ?? []), (memory(pid).hwm - before.rss) / MiB])
        return ms
      })
      const latencyRow = addRow(bench.results, {
        key: `big/${downstream.name}`,
        scenario: '16 MiB result → summary',
        downstream: downstream.name,
        target: {value: 1500, comparison: '<', of: 'value'},
      })
      const memoryRow = addRow(bench.results, {
        key: `bigRss/${downstream.name}`,
        scenario: 'gateway peak RSS growth during it (max)',
        downstream: downstream.name,
        statistic: 'max',
        reference: {label: 'the result', value: BIG_BYTES / MiB, unit: 'MiB'},
        target: {value: 4, comparison: '<', of: 'ratio'},
      })
      for (const [gateway, times] of latency) {
        addFigure(latencyRow, gateway.name, series(latencyRow.scenario, 'ms', times))
        addFigure(memoryRow, gateway.name, series(memoryRow.scenario, 'MiB', growth.get(gateway.name) ?? []))
      }
      explainMissing(bench, latencyRow, gateways)
      explainMissing(bench, memoryRow, gateways)
      bench.log(`16 MiB ${downstream.name} done`)
    }
  },
}
