// `npm run bench`: SPEC §11 measured side by side in one run, against the BUILT server
// (`node bin/run.js serve`) with its shipped defaults, driven by real MCP clients (SDK v2) over
// stdio, against the bench's own downstream and @modelcontextprotocol/server-everything, with
// slop-mcp beside ptc-mcp when it is installed (bench/README.md). Prints a table and writes
// bench/results.json. Timing belongs here, never in test assertions.
//
//   tsx bench/run.ts [--quick] [--load=N] [--only=discover,pause,cadence,cpu,...,gateway] [--gateways=ptc-mcp,...]
//                    [--downstreams=bench,everything] [--out=bench/results.json] [--steps]
import {writeFileSync} from 'node:fs'
import {parseArgs} from 'node:util'

import type {Downstream} from './lib/downstreams.js'
import type {Scenario} from './lib/scenario.js'

import {Bench} from './lib/bench.js'
import {DEFAULT_RESULTS} from './lib/paths.js'
import {PTC_SETTINGS} from './lib/ptc-mcp.js'
import {report} from './lib/report.js'
import {GATEWAY_NAMES, type GatewayName} from './lib/results.js'
import {type StepMedian, stepsTable} from './lib/steps.js'
import {bigResult} from './scenarios/big-result.js'
import {sequentialCalls} from './scenarios/calls.js'
import {contextSaved} from './scenarios/context-saved.js'
import {cpuPerProgram} from './scenarios/cpu.js'
import {discover} from './scenarios/discover.js'
import {fanOut} from './scenarios/fanout.js'
import {firstBurst} from './scenarios/first-burst.js'
import {gatewayStart} from './scenarios/gateway-start.js'
import {rssGrowth} from './scenarios/rss-growth.js'
import {sandboxTiers} from './scenarios/sandbox-tiers.js'
import {steps} from './scenarios/steps.js'
import {teamGateway} from './scenarios/team-gateway.js'
import {trivialBurst} from './scenarios/trivial-burst.js'
import {trivialCadence} from './scenarios/trivial-cadence.js'
import {trivialPause} from './scenarios/trivial-pause.js'

/** In running order; rss-growth before the 16 MiB runs, which leave garbage behind. */
export const SCENARIOS: readonly Scenario[] = [
  discover,
  gatewayStart,
  trivialPause,
  trivialCadence,
  cpuPerProgram,
  trivialBurst,
  firstBurst,
  sequentialCalls,
  fanOut,
  rssGrowth,
  bigResult,
  sandboxTiers,
  contextSaved,
  teamGateway,
]

const list = (value: string | undefined): string[] | undefined => value?.split(',').filter(Boolean)

function choose<T extends string>(flag: string, value: string | undefined, all: readonly T[]): T[] {
  const chosen = list(value) ?? [...all]
  const unknown = chosen.filter((name) => !all.includes(name as T))
  if (unknown.length > 0)
    throw new Error(`--${flag}: unknown ${unknown.join(', ')} (known: ${all.join(', ')})`)
  return chosen as T[]
}

const {values} = parseArgs({
  options: {
    quick: {type: 'boolean', default: false},
    load: {type: 'string', default: '0'},
    only: {type: 'string'},
    gateways: {type: 'string'},
    downstreams: {type: 'string'},
    out: {type: 'string', default: DEFAULT_RESULTS},
    steps: {type: 'boolean', default: false},
  },
})
// --steps alone runs the steps view only; with --only, after those scenarios.
const scenarios =
  values.steps && values.only === undefined
    ? []
    : choose(
        'only',
        values.only,
        SCENARIOS.map((s) => s.name),
      )
const bench = new Bench({
  quick: values.quick,
  gateways: choose<GatewayName>('gateways', values.gateways, GATEWAY_NAMES),
  downstreams: choose<Downstream['name']>('downstreams', values.downstreams, ['bench', 'everything']),
  verbose: true,
  load: Number(values.load),
})
bench.results.settings['execution.max_tool_calls: 300'] =
  `ptc-mcp's per-program call limit (default 100), below the ${PTC_SETTINGS.max_tool_calls}-call scenario; every latency setting is shipped`
if (values.quick)
  bench.note('--quick: few samples, to check the bench works; these figures are not measurements')
bench.log(`python ${bench.python}; load average ${bench.results.machine.loadavgAtStart}`)
try {
  for (const scenario of SCENARIOS) {
    if (!scenarios.includes(scenario.name)) continue
    bench.failures.clear()
    await scenario.run(bench)
  }
  if (values.steps) await steps.run(bench)
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exitCode = 1
} finally {
  await bench.close()
}
if (process.exitCode !== 1) {
  const {results} = bench
  writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`)
  const stepsView = results.extra.steps as {program: StepMedian[]; floor: StepMedian[]} | undefined
  if (stepsView) {
    process.stdout.write(
      `${stepsTable('print(1) after a 300 ms pause, per step (PTC_MCP_STEPS=1):', stepsView.program)}\n\n` +
        `${stepsTable('the floor (list_callable_tools), per step:', stepsView.floor)}\n\n`,
    )
  }
  process.stdout.write(
    `${report(results)}\n\nbench: ${results.totalSeconds?.toFixed(0)} s on ${results.machine.cpus} CPUs, ` +
      `load average ${results.machine.loadavgAtStart} → ${results.machine.loadavgAtEnd}` +
      `${results.machine.busyLoops ? `, with ${results.machine.busyLoops} busy loops beside it (--load)` : ''}; ${values.out}\n`,
  )
}
