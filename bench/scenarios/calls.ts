// SPEC §11: 300 sequential calls to a cheap tool from one program (the whole tool call, as the
// client sees it) against the same 300 calls made directly by an SDK client to the same server,
// measured in alternation, both sides warmed with as many calls first; ≤ 1.4× direct. ptc-mcp's own timing inside the program and its channel alone (300
// helper calls, no server) are details.
import {performance} from 'node:perf_hooks'

import type {Bench} from '../lib/bench.js'
import type {Gateway} from '../lib/gateway.js'

import {connect} from '../lib/client.js'
import {addFigure, addRow, measuredReference, series} from '../lib/results.js'
import {explainMissing, interleaved, type Scenario, warmUp, withCode} from '../lib/scenario.js'

export const CALLS = 300

export const sequentialCalls: Scenario = {
  name: 'calls',
  async run(bench) {
    // 11 rounds: the direct reference alone varies 114-168 ms between runs on 2 vCPUs; with 5 the
    // ratio of medians moved 1.33-2.04× from run to run.
    const reps = bench.reps(11, 1)
    for (const downstream of bench.downstreams) {
      const program = {kind: 'calls', call: downstream.cheap, n: CALLS} as const
      const gateways = await bench.gatewaysFor(downstream)
      const runs = withCode(gateways, program, downstream)
      const given = new Map(runs.map(({gateway, code}) => [gateway, code.code]))
      const direct = await connect(`direct-${downstream.name}`, downstream)
      const {tool, args} = downstream.cheap
      const callDirect = () => direct.client.callTool({name: tool, arguments: args})
      // The same warm-up on both sides: the JIT of a Node client and server keeps speeding up over
      // the first few thousand calls, so each gateway's untimed program is matched by as many
      // direct calls.
      for (let i = 0; i < CALLS; i++) await callDirect()
      const codes = await warmUp(bench, given)
      const directMs: number[] = []
      const inProgram: number[] = []
      const beforeRound = async () => {
        const t0 = performance.now()
        for (let i = 0; i < CALLS; i++) await callDirect()
        directMs.push(performance.now() - t0)
      }
      const programs = await interleaved(bench, [...codes.keys()], {reps, beforeRound}, async (gateway) => {
        const run = await gateway.run(codes.get(gateway)!)
        if (gateway.name === 'ptc-mcp' && run.innerMs !== undefined) inProgram.push(run.innerMs)
        return run.ms
      })
      await direct.close()
      const row = addRow(bench.results, {
        key: `calls/${downstream.name}`,
        scenario: `${CALLS} sequential ${tool} calls in one program`,
        downstream: downstream.name,
        reference: measuredReference(
          'direct',
          series(`${CALLS} ${tool} calls by an SDK client, directly`, 'ms', directMs),
        ),
        target: {value: 1.4, comparison: '<=', of: 'ratio'},
      })
      for (const [gateway, times] of programs) addFigure(row, gateway.name, series(row.scenario, 'ms', times))
      explainMissing(bench, row, gateways)
      if (inProgram.length > 0)
        bench.results.details[`callsInProgram/${downstream.name}`] = series(
          `ptc-mcp: ${CALLS} calls to ${downstream.name}, timed inside the program`,
          'ms',
          inProgram,
        )
      if (downstream === bench.downstreams[0]) await helperCalls(bench, [...codes.keys()], reps)
      bench.log(`calls ${downstream.name} done`)
    }
  },
}

/** ptc-mcp's channel alone: 300 helper calls answered by ptc-mcp itself, timed inside the program. */
async function helperCalls(bench: Bench, gateways: readonly Gateway[], reps: number): Promise<void> {
  const ptc = gateways.find((gateway) => gateway.name === 'ptc-mcp')
  if (!ptc) return
  const code = [
    'import time',
    't = time.perf_counter()',
    `for i in range(${CALLS}):`,
    '    await server_status()',
    'print((time.perf_counter() - t) * 1000)',
  ].join('\n')
  await ptc.run(code)
  const times: number[] = []
  for (let i = 0; i < reps; i++) times.push((await ptc.run(code)).innerMs ?? Number.NaN)
  bench.results.details.helperCalls = series(
    `ptc-mcp: ${CALLS} helper calls (channel only, no server)`,
    'ms',
    times,
  )
}
