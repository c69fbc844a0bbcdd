// Extra: what each sandbox tier costs, warm (the shipped pool, waited for) and cold (warm_pool 0),
// with no downstream.
import {startPtc, waitForWarmPool} from '../lib/ptc-mcp.js'
import {series, type TierResult} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

const TIERS = [
  {key: 'none', label: 'none', execution: {sandbox: 'none'}},
  {
    key: 'landlock',
    label: 'linux, PTC_MCP_BWRAP=0',
    execution: {sandbox: 'linux'},
    env: {PTC_MCP_BWRAP: '0'},
  },
  {key: 'bwrap', label: 'linux', execution: {sandbox: 'linux'}},
]

export const sandboxTiers: Scenario = {
  name: 'tiers',
  async run(bench) {
    const tiers: Record<string, TierResult> = {}
    for (const tier of TIERS) {
      const medians: Record<string, number> = {}
      let sandbox = ''
      for (const [mode, execution, samples] of [
        ['warm', tier.execution, bench.reps(12, 3)],
        ['cold', {...tier.execution, warm_pool: 0}, bench.reps(8, 2)],
      ] as const) {
        const serve = await startPtc({
          label: `${tier.key}-${mode}`,
          downstreams: [],
          dir: bench.dir(`${tier.key}-${mode}`),
          execution,
          env: tier.env,
        })
        const first = await serve.connection.client.callTool({
          name: 'execute_program',
          arguments: {code: 'print(1)'},
        })
        // A run names its tier only when it is not the usual one (linux: bwrap's).
        sandbox =
          (first.structuredContent as {sandbox?: string} | undefined)?.sandbox ??
          'linux:bwrap+landlock+seccomp (usual: not named in results)'
        const times: number[] = []
        let notReady = 0
        for (let i = 0; i < samples + 2; i++) {
          if (!(await waitForWarmPool(serve))) notReady++
          const {ms} = await serve.run('print(1)')
          if (i >= 2) times.push(ms)
        }
        if (notReady > 0) bench.note(`tiers ${tier.key} ${mode}: pool not ready before ${notReady} run(s)`)
        const measured = series(`print(1) ${mode}, sandbox: ${tier.label}`, 'ms', times)
        bench.results.details[`tier/${tier.key}/${mode}`] = measured
        medians[mode] = measured.median
        await serve.close()
      }
      tiers[tier.key] = {label: tier.label, sandbox, warmMedian: medians.warm!, coldMedian: medians.cold!}
      bench.log(`tier ${sandbox} done`)
    }
    bench.results.extra.tiers = tiers
  },
}
