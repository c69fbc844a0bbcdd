// SPEC §11 and §18, the team gateway: Redis, two `serve --http` replicas (shipped defaults) and
// HAProxy with examples/gateway/haproxy.cfg, all on loopback (test/gateway/cluster.ts starts them).
// - Throughput: 16 SDK clients (8 principals' worth each for alice and bob) send trivial programs
//   through HAProxy for a fixed time; the figure is wall time per program across the cluster,
//   against the CPU time one program costs (one replica and its children, from /proc, measured
//   on sequential programs in alternation) divided by the cores. The ratio is (programs/s the
//   CPU allows) ÷ (programs/s reached): ≤ 1/0.7 is SPEC's "at least 0.7× what the CPU allows".
// - 300 sequential calls to the cheap tool in one program through HAProxy, against the same calls
//   made directly by an SDK client, in alternation, both warmed first (the `calls` row's target).
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {existsSync} from 'node:fs'
import {performance} from 'node:perf_hooks'

import type {Bench} from '../lib/bench.js'

import {Cluster, TOKENS} from '../../test/gateway/cluster.js'
import {connect} from '../lib/client.js'
import {accountTree} from '../lib/cpu.js'
import {benchDownstream} from '../lib/downstreams.js'
import {PTC_SETTINGS, ptcCode} from '../lib/ptc-mcp.js'
import {addFigure, addRow, measuredReference, series} from '../lib/results.js'
import {type Scenario, TRIVIAL} from '../lib/scenario.js'
import {CALLS} from './calls.js'

export const CLIENTS = 16
const NEEDS = ['/usr/bin/redis-server', '/usr/sbin/haproxy']

interface Program {
  isError?: boolean
  content: Array<{text?: string}>
}

async function gatewayClient(url: string, token: string): Promise<Client> {
  const client = new Client({name: 'bench-gateway', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: {headers: {Authorization: `Bearer ${token}`}},
    }),
  )
  return client
}

async function run(client: Client, code: string): Promise<void> {
  const result = (await client.callTool({name: 'execute_program', arguments: {code}})) as Program
  if (result.isError)
    throw new Error(`a program failed through the gateway: ${result.content[0]?.text ?? ''}`)
}

/** `CLIENTS` clients, each sending `code` one program after another for `ms`: programs answered. */
async function flood(clients: readonly Client[], code: string, ms: number): Promise<number> {
  const until = performance.now() + ms
  let answered = 0
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        await run(client, code)
        answered++
      }
    }),
  )
  return answered
}

export const teamGateway: Scenario = {
  name: 'gateway',
  async run(bench) {
    const missing = NEEDS.filter((path) => !existsSync(path))
    if (missing.length > 0) {
      bench.note(`gateway not measured: ${missing.join(', ')} not installed (Debian: redis-server, haproxy)`)
      return
    }
    const cluster = new Cluster()
    const opened: Client[] = []
    try {
      const store = await cluster.redis()
      const config = cluster.config(
        // The 16 clients are two principals: their limits must not be what the row measures.
        {store, per_principal: {max_concurrent_programs: CLIENTS, programs_per_minute: 1_000_000}},
        {
          servers: [
            {name: benchDownstream.name, command: benchDownstream.command, args: benchDownstream.args},
          ],
          // Shipped defaults, but for the 300-call program (as every other row).
          execution: {...PTC_SETTINGS},
        },
      )
      const replicas = [await cluster.replica(config), await cluster.replica(config)]
      const balancer = await cluster.haproxy(replicas.map((replica) => replica.url))
      const open = async (url: string, token: string) => {
        const client = await gatewayClient(url, token)
        opened.push(client)
        return client
      }
      await throughput(bench, {replica: replicas[0]!, balancer, open})
      await callsThrough(bench, await open(balancer, TOKENS.alice))
      bench.log('gateway done')
    } finally {
      await Promise.allSettled(opened.map((client) => client.close()))
      await cluster.stopAll()
    }
  },
}

interface Setup {
  replica: {url: string; process: {proc: {pid?: number}}}
  balancer: string
  open(url: string, token: string): Promise<Client>
}

async function throughput(bench: Bench, {replica, balancer, open}: Setup): Promise<void> {
  const {code} = ptcCode(TRIVIAL, benchDownstream)
  const cores = Number(bench.results.machine.cpus)
  const pid = replica.process.proc.pid!
  const direct = await open(replica.url, TOKENS.alice)
  const clients = await Promise.all(
    Array.from({length: CLIENTS}, (_, i) => open(balancer, i % 2 === 0 ? TOKENS.alice : TOKENS.bob)),
  )
  // Warm: every client once, each replica's pool and fork server started.
  await Promise.all(clients.map((client) => run(client, code)))
  const sequential = bench.reps(30, 8)
  const cpuPerProgram: number[] = []
  const wallPerProgram: number[] = []
  const perSecond: number[] = []
  // The CPU one program costs a replica (serve, fork server, the program's child), one at a time:
  // counted by a cgroup where one can be made (/proc misses a killed namespace init's children).
  const account = accountTree(pid)
  for (let round = 0; round < bench.reps(5, 1); round++) {
    const before = account.ms()
    for (let i = 0; i < sequential; i++) await run(direct, code)
    cpuPerProgram.push((account.ms() - before) / sequential / cores)
    const ms = bench.reps(10_000, 3000)
    const t0 = performance.now()
    const answered = await flood(clients, code, ms)
    const elapsed = performance.now() - t0
    wallPerProgram.push(elapsed / answered)
    perSecond.push((answered * 1000) / elapsed)
  }
  account.close()
  const row = addRow(bench.results, {
    key: 'gateway/throughput',
    scenario: `print(1) from ${CLIENTS} clients through HAProxy to 2 replicas: wall time per program`,
    downstream: benchDownstream.name,
    reference: measuredReference(
      `CPU per program ÷ ${cores} cores`,
      series(`CPU per print(1), one replica and its children, ÷ ${cores} cores`, 'ms', cpuPerProgram),
    ),
    // Throughput ≥ 0.7× what the CPU allows.
    target: {value: Math.round((1 / 0.7) * 100) / 100, comparison: '<=', of: 'ratio'},
  })
  addFigure(row, 'ptc-mcp', series(row.scenario, 'ms', wallPerProgram))
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const allowed = 1000 / median(cpuPerProgram)
  bench.note(
    `gateway: ${median(perSecond).toFixed(1)} programs/s through HAProxy with ${CLIENTS} clients; the CPU per program allows ${allowed.toFixed(1)}/s on ${cores} cores (${((median(perSecond) / allowed) * 100).toFixed(0)} %)`,
  )
  bench.results.details['gateway/cpuPerProgram'] = series(
    'CPU per print(1), one replica and its children (not divided by the cores)',
    'ms',
    cpuPerProgram.map((value) => value * cores),
  )
}

async function callsThrough(bench: Bench, client: Client): Promise<void> {
  const {code} = ptcCode({kind: 'calls', call: benchDownstream.cheap, n: CALLS}, benchDownstream)
  const direct = await connect('direct-bench-gateway', benchDownstream)
  try {
    const {tool, args} = benchDownstream.cheap
    const callDirect = () => direct.client.callTool({name: tool, arguments: args})
    for (let i = 0; i < CALLS; i++) await callDirect()
    await run(client, code)
    const directMs: number[] = []
    const throughMs: number[] = []
    for (let round = 0; round < bench.reps(11, 1); round++) {
      let t0 = performance.now()
      for (let i = 0; i < CALLS; i++) await callDirect()
      directMs.push(performance.now() - t0)
      t0 = performance.now()
      await run(client, code)
      throughMs.push(performance.now() - t0)
    }
    const row = addRow(bench.results, {
      key: 'gateway/calls',
      scenario: `${CALLS} sequential ${tool} calls in one program, through HAProxy`,
      downstream: benchDownstream.name,
      reference: measuredReference(
        'direct',
        series(`${CALLS} ${tool} calls by an SDK client, directly`, 'ms', directMs),
      ),
      target: {value: 1.6, comparison: '<=', of: 'ratio'},
    })
    addFigure(row, 'ptc-mcp', series(row.scenario, 'ms', throughMs))
  } finally {
    await direct.close()
  }
}
