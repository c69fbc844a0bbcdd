// Extra: serve's memory after 10 and after 200 programs (two at a time: one takes the warm
// child, the other starts its own). ptc-mcp with the first downstream.
import {setTimeout as sleep} from 'node:timers/promises'

import {MiB} from '../lib/paths.js'
import {memory} from '../lib/proc.js'
import {ptcOnFirstDownstream, waitForWarmPool} from '../lib/ptc-mcp.js'
import {type Scenario} from '../lib/scenario.js'

export const rssGrowth: Scenario = {
  name: 'memory',
  async run(bench) {
    const found = await ptcOnFirstDownstream(bench)
    if (!found) return
    const {ptc} = found
    const total = bench.reps(200, 10)
    let count = 0
    const rss: Record<number, number> = {}
    for (const upTo of [10, total]) {
      while (count < upTo) {
        await Promise.all([ptc.run('print(1)'), ptc.run('x = [1] * 1000')])
        count += 2
      }
      await waitForWarmPool(ptc)
      await sleep(300)
      rss[upTo] = Math.round((memory(ptc.pid).rss / MiB) * 10) / 10
    }
    bench.results.extra.rssAfterPrograms = rss
    bench.log('memory done')
  },
}
