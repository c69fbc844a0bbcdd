import type {SandboxBackend} from '../../src/sandbox/backend.js'

import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {createLinuxBackend} from '../../src/sandbox/linux/index.js'
/**
 * Measures what each sandbox tier adds to starting one program child (SPEC §7), through the real
 * engine with the warm pool off, so every run pays a full start: spawn, confinement, runner load.
 * Tiers are interleaved round by round so that load on the machine hits them alike.
 *
 *   npx tsx test/sandbox/startup-cost.ts [rounds]      (PTC_MCP_TEST_PYTHON picks the interpreter)
 */
import {noneBackend} from '../../src/sandbox/none.js'
import {startEngine} from './harness.js'

const rounds = Number(process.argv[2] ?? 20)
const tiers: [string, SandboxBackend][] = [
  ['none', noneBackend],
  ['linux:landlock+seccomp', createLinuxBackend({bwrap: false})],
]
if (findBwrap()) tiers.push(['linux:bwrap+landlock+seccomp', createLinuxBackend({bwrap: true})])

const engines = await Promise.all(tiers.map(([, backend]) => startEngine(backend)))
const samples = new Map<string, number[]>(tiers.map(([name]) => [name, []]))
for (const engine of engines) await engine.run('pass') // probes and caches out of the way
for (let round = 0; round < rounds; round++) {
  for (const [index, [name]] of tiers.entries()) {
    const started = performance.now()
    const outcome = await engines[index]!.run('pass')
    if (!outcome.ok) throw new Error(`${name}: ${outcome.text}`)
    samples.get(name)!.push(performance.now() - started)
  }
}
await Promise.all(engines.map((engine) => engine.close()))

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
const base = median(samples.get('none')!)
for (const [name, values] of samples) {
  const m = median(values)
  console.log(
    `${name.padEnd(30)} median ${m.toFixed(1).padStart(7)} ms  (+${(m - base).toFixed(1)} ms over none)  ` +
      `min ${Math.min(...values).toFixed(1)}  max ${Math.max(...values).toFixed(1)}  n=${values.length}`,
  )
}
