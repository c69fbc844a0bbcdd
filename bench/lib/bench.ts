// One bench run: its options, results, scratch directory, and the gateways it has started (one
// per gateway and downstream, kept for the whole run so every scenario reuses them).
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'

import type {Downstream} from './downstreams.js'
import type {Gateway, GatewayKind} from './gateway.js'

import {closeAll} from './client.js'
import {DOWNSTREAMS} from './downstreams.js'
import {type FreshProcess, freshProcessSamples} from './fresh-process.js'
import {BusyLoops} from './load.js'
import {myCoolProxy} from './my-cool-proxy.js'
import {loadavg} from './proc.js'
import {ptcMcp} from './ptc-mcp.js'
import {bareStartSamples, realPython} from './python.js'
import {firstLine, type GatewayName, newResults, type Results, series} from './results.js'
import {sdkFloor} from './sdk-floor.js'
import {slopMcp} from './slop-mcp.js'

export interface BenchOptions {
  /** Fewer repetitions: checks that the bench works, not what it measures. */
  quick: boolean
  gateways: readonly GatewayName[]
  downstreams: ReadonlyArray<Downstream['name']>
  /** Write progress lines to stderr. */
  verbose: boolean
  /** Busy loops to run beside the whole run (`--load N`); none by default. */
  load?: number
}

const KINDS: readonly GatewayKind[] = [ptcMcp, slopMcp, myCoolProxy, sdkFloor]

export class Bench {
  readonly results: Results
  readonly python: string
  readonly kinds: GatewayKind[]
  readonly downstreams: Downstream[]
  readonly workDir = mkdtempSync(join(tmpdir(), 'ptc-bench-'))
  private readonly startedAt = performance.now()
  private readonly gateways = new Map<string, Promise<Gateway | undefined>>()
  /** Why a peer was left out of the running scenario (cleared before each scenario). */
  readonly failures = new Map<Gateway, string>()
  private readonly bare: number[] = []
  private readonly fresh = {paused: [] as number[], backToBack: [] as number[], cpu: [] as number[]}
  private dirs = 0
  private readonly busyLoops?: BusyLoops

  constructor(readonly options: BenchOptions) {
    this.python = realPython()
    this.results = newResults({
      node: process.version,
      cpus: Number(execFileSync('nproc', {encoding: 'utf8'}).trim()),
      cpu: readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? 'unknown',
      python: this.python,
      loadavgAtStart: loadavg(),
      busyLoops: options.load ?? 0,
    })
    if (options.load !== undefined && options.load !== 0)
      this.busyLoops = new BusyLoops(this.python, options.load)
    this.kinds = []
    for (const kind of KINDS) {
      if (!options.gateways.includes(kind.name)) continue
      const reason = kind.unavailable()
      if (reason === undefined) this.kinds.push(kind)
      else this.note(`${kind.name} not measured: ${reason}`)
    }
    this.downstreams = DOWNSTREAMS.filter((d) => options.downstreams.includes(d.name))
  }

  reps(full: number, quick: number): number {
    return this.options.quick ? quick : full
  }

  log(message: string): void {
    if (!this.options.verbose) return
    const seconds = ((performance.now() - this.startedAt) / 1000).toFixed(1).padStart(5)
    process.stderr.write(`[bench ${seconds}s] ${message}\n`)
  }

  note(message: string): void {
    if (!this.results.notes.includes(message)) this.results.notes.push(message)
  }

  /**
   * A peer failed: noted, and remembered as the reason it has no figure in the scenario's rows.
   * ptc-mcp failing fails the run (rethrown).
   */
  leftOut(gateway: Gateway, error: unknown): void {
    if (gateway.name === 'ptc-mcp') throw error
    const reason = firstLine(error)
    this.note(`${gateway.name}: ${reason}`)
    if (!this.failures.has(gateway)) this.failures.set(gateway, reason)
  }

  /** A new directory inside the run's scratch directory. */
  dir(label: string): string {
    return join(this.workDir, `${String(++this.dirs).padStart(2, '0')}-${label}`)
  }

  /**
   * The gateways to compare against `downstream`, started on first use and warmed up with one
   * call to its cheap tool (a peer may connect to its servers lazily). A peer that fails to start
   * is noted and left out; ptc-mcp failing fails the run.
   */
  async gatewaysFor(downstream: Downstream): Promise<Gateway[]> {
    const started = await Promise.all(this.kinds.map((kind) => this.gateway(kind, downstream)))
    return started.filter((gateway) => gateway !== undefined)
  }

  private gateway(kind: GatewayKind, downstream: Downstream): Promise<Gateway | undefined> {
    const key = `${kind.name}/${downstream.name}`
    let started = this.gateways.get(key)
    if (!started) {
      started = (async (): Promise<Gateway | undefined> => {
        try {
          const gateway = await kind.start({
            label: key,
            downstreams: [downstream],
            dir: this.dir(key.replace('/', '-')),
          })
          const warmUp = gateway.code({kind: 'calls', call: downstream.cheap, n: 1}, downstream)
          if (warmUp) await gateway.run(warmUp.code)
          this.log(`${key} up in ${gateway.startMs.toFixed(0)} ms`)
          return gateway
        } catch (error) {
          if (kind.name === 'ptc-mcp') throw error
          this.note(
            `${key} not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
          )
        }
      })()
      this.gateways.set(key, started)
    }
    return started
  }

  /** Bare interpreter starts, taken now; also pooled into the run's `bareStart` detail. */
  bareStart(samples: number): number[] {
    const batch = bareStartSamples(this.python, samples)
    this.bare.push(...batch)
    this.results.details.bareStart = series('bare python3 -I -S -c pass, the whole run', 'ms', this.bare)
    return batch
  }

  /**
   * P (SPEC §11), taken now: `rounds` fresh processes, each `pauseMs` after the one before (0:
   * back to back); pooled into the run's details (latency after a pause, back to back, CPU).
   */
  freshProcess(rounds: number, pauseMs: number): FreshProcess {
    const measured = freshProcessSamples(this.python, rounds, pauseMs)
    const {fresh} = this
    const kind = pauseMs > 0 ? 'paused' : 'backToBack'
    fresh[kind].push(...measured.ms)
    fresh.cpu.push(measured.parentCpuMs + measured.childCpuMs)
    const label = pauseMs > 0 ? `after a ${pauseMs} ms pause` : 'back to back'
    this.results.details[`fresh-${kind}`] = series(
      `P: fork, one line each way, reap (${label})`,
      'ms',
      fresh[kind],
    )
    this.results.details['fresh-cpu'] = series(
      "P's CPU per round, parent + child (getrusage)",
      'ms',
      fresh.cpu,
    )
    return measured
  }

  async close(): Promise<void> {
    await closeAll()
    this.results.machine.loadavgAtEnd = loadavg()
    await this.busyLoops?.stop()
    this.results.totalSeconds = (performance.now() - this.startedAt) / 1000
    rmSync(this.workDir, {recursive: true, force: true})
  }
}
