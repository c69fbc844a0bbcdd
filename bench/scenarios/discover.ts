// Spawn → `server/discover` answered (SPEC §5): Claude Code's probe, which it waits ~2.5 s for.
// ptc-mcp and the peers with the first downstream configured (serve answers before connecting to
// it) beside the SDK floor with no servers: what any Node server on the SDK pays before its first
// answer (an error is an answer too: a 2025 server refuses the method). 20 spawns each, in
// alternation; the target is ptc-mcp's median itself, on an idle machine.
import type {GatewayKind} from '../lib/gateway.js'

import {spawnToDiscover} from '../lib/discover.js'
import {addFigure, addMissing, addRow, firstLine, measuredReference, series} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

/** SPEC §5: within 300 ms of being spawned, idle. */
export const DISCOVER_TARGET_MS = 300

export const discover: Scenario = {
  name: 'discover',
  async run(bench) {
    const [downstream] = bench.downstreams
    if (!downstream) return
    const kinds = bench.kinds.filter((kind) => kind.launch)
    const measured = new Map<GatewayKind, number[]>(kinds.map((kind) => [kind, []]))
    const failed = new Map<GatewayKind, string>()
    // One directory (its home and caches) per gateway for all its spawns, as a user's: the first
    // start after an install keeps its code cache there (ptc-mcp, src/cli/serve-bundle.ts), so
    // round 0 is untimed and the figure is every start after it.
    const dirs = new Map(kinds.map((kind) => [kind, bench.dir(`discover-${kind.name}`)]))
    for (let i = -1; i < bench.reps(20, 3); i++) {
      for (const [kind, times] of measured) {
        try {
          const launch = kind.launch!({
            label: `discover-${kind.name}`,
            downstreams: kind.name === 'sdk-floor' ? [] : [downstream],
            dir: dirs.get(kind)!,
          })
          const ms = await spawnToDiscover(launch)
          if (i >= 0) times.push(ms)
        } catch (error) {
          if (kind.name === 'ptc-mcp') throw error
          bench.note(`${kind.name}: server/discover not measured: ${firstLine(error)}`)
          failed.set(kind, firstLine(error))
          measured.delete(kind)
        }
      }
    }
    const floorTimes = [...measured].find(([kind]) => kind.name === 'sdk-floor')?.[1]
    const row = addRow(bench.results, {
      key: `discover/${downstream.name}`,
      scenario: 'spawn → server/discover answered',
      downstream: downstream.name,
      reference: floorTimes
        ? measuredReference(
            'SDK floor, no servers',
            series('sdk-floor spawn → server/discover answered', 'ms', floorTimes),
          )
        : undefined,
      target: {value: DISCOVER_TARGET_MS, comparison: '<=', of: 'value'},
    })
    for (const [kind, times] of measured) addFigure(row, kind.name, series(row.scenario, 'ms', times))
    for (const [kind, reason] of failed) addMissing(row, kind.name, reason)
    bench.log('discover done')
  },
}
