// SPEC §11: CPU per trivial program, serve and all its children (from /proc), against P's CPU
// (a warmed Python forking a child that answers one line, parent + child, getrusage). Each
// program after the warm pool has refilled, so that making its replacement is counted; serve's
// idle CPU over as long a time is reported beside it. ptc-mcp only (the peers run no process per
// program).
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'

import {treeCpuMs} from '../lib/cpu.js'
import {type PtcGateway, waitForWarmPool} from '../lib/ptc-mcp.js'
import {addFigure, addRow, series} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

export const cpuPerProgram: Scenario = {
  name: 'cpu',
  async run(bench) {
    const [downstream] = bench.downstreams
    if (!downstream) return
    const ptc = (await bench.gatewaysFor(downstream)).find((g) => g.name === 'ptc-mcp') as
      PtcGateway | undefined
    if (!ptc) return
    const rounds = bench.reps(5, 2)
    const programs = bench.reps(30, 8)
    const perProgram: number[] = []
    const idlePerSecond: number[] = []
    const fresh: number[] = []
    for (let round = 0; round < rounds; round++) {
      const p = bench.freshProcess(programs, 0)
      fresh.push(p.parentCpuMs + p.childCpuMs)
      await waitForWarmPool(ptc)
      await sleep(200)
      // Idle: serve with its pool full, nothing asked.
      let t0 = performance.now()
      let cpu0 = treeCpuMs(ptc.pid)
      await sleep(1000)
      idlePerSecond.push((treeCpuMs(ptc.pid) - cpu0) / ((performance.now() - t0) / 1000))
      t0 = performance.now()
      cpu0 = treeCpuMs(ptc.pid)
      for (let i = 0; i < programs; i++) {
        await ptc.run('print(1)')
        await waitForWarmPool(ptc)
      }
      await sleep(100)
      perProgram.push((treeCpuMs(ptc.pid) - cpu0) / programs)
    }
    const freshSeries = series("P's CPU per round (parent + child)", 'ms', fresh)
    bench.results.details.idleCpu = series(
      "serve's idle CPU per second, warm pool full (serve + children)",
      'ms',
      idlePerSecond,
    )
    const row = addRow(bench.results, {
      key: `cpu/${downstream.name}`,
      scenario: 'CPU per print(1), serve + children (/proc)',
      downstream: downstream.name,
      reference: {label: "P's CPU", value: freshSeries.median, unit: 'ms', series: freshSeries},
      target: {value: 2, comparison: '<=', of: 'ratio'},
    })
    addFigure(row, 'ptc-mcp', series(row.scenario, 'ms', perProgram))
    bench.log('cpu done')
  },
}
