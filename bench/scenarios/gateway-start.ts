// SPEC §11: a gateway's start, from launch to its first tools/list answer, with three stdio
// servers configured (the bench's own, server-everything and the example finance server), ≤ 1.5×
// the SDK floor gateway's start with the same servers; every gateway started in turn, in
// alternation, each round.
import type {Gateway, GatewayKind} from '../lib/gateway.js'

import {benchDownstream, everythingDownstream} from '../lib/downstreams.js'
import {FINANCE_SERVER} from '../lib/paths.js'
import {addFigure, addMissing, addRow, firstLine, measuredReference, series} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

export const START_SERVERS = [
  benchDownstream,
  everythingDownstream,
  {name: 'finance', command: process.execPath, args: [FINANCE_SERVER]},
]

export const gatewayStart: Scenario = {
  name: 'start',
  async run(bench) {
    const starts = new Map<GatewayKind, number[]>(bench.kinds.map((kind) => [kind, []]))
    const failed = new Map<GatewayKind, string>()
    for (let round = 0; round < bench.reps(5, 1); round++) {
      for (const [kind, times] of starts) {
        let gateway: Gateway | undefined
        try {
          const dir = bench.dir(`start-${kind.name}`)
          gateway = await kind.start({label: `start-${kind.name}`, downstreams: START_SERVERS, dir})
          times.push(gateway.startMs)
        } catch (error) {
          if (kind.name === 'ptc-mcp') throw error
          const reason = firstLine(error)
          bench.note(`${kind.name}: start not measured: ${reason}`)
          failed.set(kind, reason)
          starts.delete(kind)
        } finally {
          await gateway?.close()
        }
      }
    }
    const floor = [...starts].find(([kind]) => kind.name === 'sdk-floor')?.[1]
    const row = addRow(bench.results, {
      key: 'start',
      scenario: 'start → first tools/list answered, 3 stdio servers',
      downstream: START_SERVERS.map((server) => server.name).join('+'),
      reference:
        floor && floor.length > 0
          ? measuredReference('SDK floor', series('sdk-floor start, 3 stdio servers', 'ms', floor))
          : undefined,
      target: {value: 1.5, comparison: '<=', of: 'ratio'},
    })
    for (const [kind, reason] of failed) addMissing(row, kind.name, reason)
    for (const [kind, times] of starts)
      if (times.length > 0) addFigure(row, kind.name, series(row.scenario, 'ms', times))
    bench.log('gateway start done')
  },
}
