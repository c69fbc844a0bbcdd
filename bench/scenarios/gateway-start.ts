// Extra: each gateway's start, from launch to its first tools/list answer, with the first downstream.
import {series} from '../lib/results.js'
import {type Scenario} from '../lib/scenario.js'

export const gatewayStart: Scenario = {
  name: 'start',
  async run(bench) {
    const [downstream] = bench.downstreams
    if (!downstream) return
    for (const kind of bench.kinds) {
      const starts: number[] = []
      try {
        for (let i = 0; i < bench.reps(3, 1); i++) {
          const dir = bench.dir(`start-${kind.name}`)
          const gateway = await kind.start({label: `start-${kind.name}`, downstreams: [downstream], dir})
          starts.push(gateway.startMs)
          await gateway.close()
        }
      } catch (error) {
        if (kind.name === 'ptc-mcp') throw error
        bench.note(
          `${kind.name} start not measured: ${error instanceof Error ? error.message : String(error)}`,
        )
        continue
      }
      bench.results.details[`start/${kind.name}`] = series(
        `${kind.name}: start → first tools/list answer`,
        'ms',
        starts,
      )
    }
    bench.log('gateway start done')
  },
}
