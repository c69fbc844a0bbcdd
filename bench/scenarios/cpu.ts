// SPEC §11: CPU per trivial program, serve and all its children, against P's CPU (a warmed Python
// forking a child that answers one line, parent + child, getrusage). Serve's tree is counted by a
// cgroup of the bench's own (lib/cpu.ts: /proc misses the children of a killed namespace init).
// Each program after as many children wait ready as before it, so that making its replacement is
// counted; serve's idle CPU with its pool full is reported beside it. ptc-mcp only (the peers run
// no process per program).
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'

import {accountTree} from '../lib/cpu.js'
import {MiB} from '../lib/paths.js'
import {forkServerChildrenPss, readyChildren} from '../lib/proc.js'
import {type PtcGateway, ptcOnFirstDownstream, waitForWarmPool} from '../lib/ptc-mcp.js'
import {addFigure, addRow, series} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

/** Until `count` children wait ready again (bounded: 5 s). */
async function refilled(ptc: PtcGateway, count: number): Promise<void> {
  const deadline = performance.now() + 5000
  while (readyChildren(ptc.pid) < count && performance.now() < deadline) await sleep(5)
}

export const cpuPerProgram: Scenario = {
  name: 'cpu',
  async run(bench) {
    const found = await ptcOnFirstDownstream(bench)
    if (!found) return
    const {downstream, ptc} = found
    const rounds = bench.reps(5, 2)
    const programs = bench.reps(30, 8)
    const perProgram: number[] = []
    const idlePerSecond: number[] = []
    const fresh: number[] = []
    await waitForWarmPool(ptc)
    await sleep(1000)
    const pool = readyChildren(ptc.pid)
    const pss = forkServerChildrenPss(ptc.pid) / MiB
    const account = accountTree(ptc.pid)
    try {
      for (let round = 0; round < rounds; round++) {
        const p = bench.freshProcess(programs, 0)
        fresh.push(p.parentCpuMs + p.childCpuMs)
        await refilled(ptc, pool)
        await sleep(200)
        // Idle: serve with its pool full, nothing asked.
        let t0 = performance.now()
        let cpu0 = account.ms()
        await sleep(1000)
        idlePerSecond.push((account.ms() - cpu0) / ((performance.now() - t0) / 1000))
        t0 = performance.now()
        cpu0 = account.ms()
        for (let i = 0; i < programs; i++) {
          await ptc.run('print(1)')
          await refilled(ptc, pool)
        }
        await sleep(100)
        perProgram.push((account.ms() - cpu0) / programs)
      }
    } finally {
      account.close()
    }
    if (account.method.startsWith('/proc')) bench.note(`CPU per program counted from ${account.method}`)
    const freshSeries = series("P's CPU per round (parent + child)", 'ms', fresh)
    bench.results.details.idleCpu = series(
      `serve's idle CPU per second, ${pool} children ready (serve + children)`,
      'ms',
      idlePerSecond,
    )
    bench.results.extra.readyChildren = {count: pool, pssMiB: Math.round(pss * 10) / 10}
    bench.note(
      `${pool} children wait ready (the reservoir): ${pss.toFixed(1)} MiB PSS together, ${(pss / Math.max(pool, 1)).toFixed(1)} MiB each`,
    )
    const row = addRow(bench.results, {
      key: `cpu/${downstream.name}`,
      scenario: 'CPU per print(1), serve + children',
      downstream: downstream.name,
      reference: {label: "P's CPU", value: freshSeries.median, unit: 'ms', series: freshSeries},
      target: {value: 2, comparison: '<=', of: 'ratio'},
    })
    addFigure(row, 'ptc-mcp', series(row.scenario, 'ms', perProgram))
    bench.log(`cpu done (${account.method})`)
  },
}
