#!/usr/bin/env node
// `npm run bench`: SPEC §11 measured side by side in one run, against the BUILT server
// (`node bin/run.js serve`), driven by real MCP clients (SDK v2, default handshake) over stdio,
// with a plain-JS downstream server (bench/bench-server.js) and the bundled example. Prints a
// table and writes bench/results.json. Timing belongs here, never in test assertions.
//
//   node bench/run.js [--quick] [--only=start,trivial,calls,fanout,memory,big,tiers,context]
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'
import {fileURLToPath} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const RUN_JS = join(ROOT, 'bin', 'run.js')
const BENCH_SERVER = join(ROOT, 'bench', 'bench-server.js')
const FINANCE_SERVER = join(ROOT, 'examples', 'finance-server.js')
const RESULTS = join(ROOT, 'bench', 'results.json')
const MiB = 1024 * 1024
const BIG_BYTES = 16 * MiB
const QUICK = process.argv.includes('--quick')
const ONLY = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',')

const startedAt = performance.now()
const workDir = mkdtempSync(join(tmpdir(), 'ptc-bench-'))
const open = new Set()
/** Everything measured; written to bench/results.json. */
const results = {machine: machineInfo(), series: {}, ratios: {}, notes: []}

// -------------------------------------------------------------------------------------------------
// Measuring

function machineInfo() {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? 'unknown'
  return {
    node: process.version,
    cpus: Number(execFileSync('nproc', {encoding: 'utf8'}).trim()),
    cpu,
    loadavgAtStart: loadavg(),
  }
}

function loadavg() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
  const mid = sorted.length / 2
  const median = sorted.length % 2 === 0 ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)]
  return {n: sorted.length, median, p90: at(0.9), min: sorted[0], max: sorted.at(-1)}
}

function record(key, label, unit, samples) {
  const entry = {label, unit, ...stats(samples), samples: samples.map((s) => Math.round(s * 1000) / 1000)}
  results.series[key] = entry
  return entry
}

/** A SPEC §11 ratio (or a reported figure) and its target; `beside` names the series it belongs to. */
function ratio(key, {label, value, target = null, comparison = '<=', unit = '×', beside}) {
  let pass = null
  if (target !== null) pass = comparison === '<=' ? value <= target : value < target
  results.ratios[key] = {label, value, target, comparison, unit, pass, beside}
  return value
}

function log(message) {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1).padStart(5)
  process.stderr.write(`[bench ${seconds}s] ${message}\n`)
}

/** The real interpreter behind `python3` (a pyenv shim is a shell script: not what to time). */
function realPython() {
  return execFileSync('python3', ['-c', 'import os, sys; print(os.path.realpath(sys.executable))'], {
    encoding: 'utf8',
  }).trim()
}

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8')
  } catch {
    return ''
  }
}

function descendants(root) {
  const children = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = readProc(name, 'stat')
    if (!stat) continue
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (!children.has(ppid)) children.set(ppid, [])
    children.get(ppid).push(Number(name))
  }
  const found = []
  const queue = [root]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

/**
 * Program children of a serve process that wait for a program: the runner sits in its event
 * loop's epoll_wait only once it is confined and loaded (it reads its start message with a
 * blocking recv before that).
 */
function readyChildren(servePid) {
  return descendants(servePid).filter(
    (pid) => readProc(pid, 'cmdline').includes('runner.py') && readProc(pid, 'wchan') === 'do_epoll_wait',
  ).length
}

/** The pause before a timed call (or burst of calls), as after a client's thinking. */
const IDLE_MS = 50

/** Waits (bounded) until the warm pool has `size` children ready, so that a run takes a warm one. */
async function waitForPool(serve) {
  const size = serve.config.execution.warm_pool
  if (size === 0) {
    await sleep(30)
    return
  }
  const deadline = performance.now() + 5000
  while (performance.now() < deadline) {
    if (readyChildren(serve.pid) >= size) {
      // The `ready` message is on its way to the server: let it land.
      await sleep(15)
      return
    }
    await sleep(10)
  }
  serve.notReady++
}

function memory(pid) {
  const status = readProc(pid, 'status')
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return {rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024}
}

/** Resets the process's peak RSS (VmHWM) to its current RSS. */
function resetPeak(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

/** A real MCP client (SDK v2, the default initialize handshake) of a stdio server. */
async function connectClient(name, command, args, env = {}) {
  const transport = new StdioClientTransport({
    command,
    args,
    env: {...process.env, ...env},
    stderr: 'pipe',
    cwd: ROOT,
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk) => {
    if (stderr.length < 100_000) stderr += chunk
  })
  const client = new Client({name, version: '1.0.0'})
  await client.connect(transport)
  const handle = {
    client,
    pid: transport.pid,
    stderr: () => stderr,
    async close() {
      open.delete(handle)
      await client.close().catch(() => {})
    },
  }
  open.add(handle)
  return handle
}

const benchServer = {name: 'bench', command: process.execPath, args: [BENCH_SERVER]}

/** Starts `ptc-mcp serve` with a generated config; resolves once tools/list has answered. */
async function startServe(label, {execution = {}, servers = [benchServer], env = {}} = {}) {
  const dir = mkdtempSync(join(workDir, 'serve-'))
  const configPath = join(dir, 'config.yaml')
  const config = {
    servers,
    execution: {
      timeout_seconds: 60,
      max_tool_calls: 1000,
      max_concurrent_calls: 8,
      warm_pool: 1,
      ...execution,
    },
  }
  writeFileSync(configPath, JSON.stringify(config, null, 2)) // JSON is YAML
  const t0 = performance.now()
  const serve = await connectClient(
    `bench-${label}`,
    process.execPath,
    [RUN_JS, 'serve', '--config', configPath],
    env,
  )
  await serve.client.listTools()
  return Object.assign(serve, {label, config, startMs: performance.now() - t0, notReady: 0})
}

async function callTool(serve, name, args = {}) {
  const t0 = performance.now()
  const result = await serve.client.callTool({name, arguments: args}, {timeout: 120_000})
  return {ms: performance.now() - t0, result}
}

async function execute(serve, code) {
  const {ms, result} = await callTool(serve, 'execute_program', {code})
  const structured = result.structuredContent
  if (result.isError || !structured?.ok) {
    throw new Error(`program failed:\n${result.content?.[0]?.text}\n--- serve stderr ---\n${serve.stderr()}`)
  }
  return {ms, structured, text: result.content[0].text}
}

/** `samples` timings of `run()`, each after the warm pool is full again; `warmups` first, unrecorded. */
async function pooledSamples(serve, samples, warmups, run) {
  const times = []
  for (let i = 0; i < warmups + samples; i++) {
    await waitForPool(serve)
    await sleep(IDLE_MS)
    const ms = await run()
    if (i >= warmups) times.push(ms)
  }
  return times
}

const trivial = (serve) => async () => (await execute(serve, 'print(1)')).ms

/**
 * Starts of a bare `python -I -S -c pass`, timed by a small Python process with posix_spawn and
 * waitpid: the interpreter's own start, without the cost of forking this (larger) Node process.
 */
function bareStartSamples(python, samples) {
  const harness = [
    'import json, os, sys, time',
    'exe, n = sys.argv[1], int(sys.argv[2])',
    'times = []',
    'for i in range(n + 3):',
    '    t = time.perf_counter()',
    '    pid = os.posix_spawn(exe, [exe, "-I", "-S", "-c", "pass"], {})',
    '    _, status = os.waitpid(pid, 0)',
    '    if status != 0: sys.exit("bare start failed")',
    '    times.append((time.perf_counter() - t) * 1000)',
    'print(json.dumps(times[3:]))',
  ].join('\n')
  return JSON.parse(
    execFileSync(python, ['-I', '-S', '-c', harness, python, String(samples)], {encoding: 'utf8'}),
  )
}

/** The last line a program printed, as a number (programs print their own inner timings). */
function printedNumber(structured) {
  const value = Number(structured.output.trim().split('\n').at(-1))
  if (!Number.isFinite(value)) throw new Error(`expected a number, the program printed: ${structured.output}`)
  return value
}

const timedLoop = (body, n) =>
  [
    'import time',
    't = time.perf_counter()',
    `for i in range(${n}):`,
    `    ${body}`,
    'print((time.perf_counter() - t) * 1000)',
  ].join('\n')

const wanted = (name) => !ONLY || ONLY.includes(name)
const reps = (full, quick) => (QUICK ? quick : full)

// -------------------------------------------------------------------------------------------------
// Scenarios

async function main() {
  const python = realPython()
  results.machine.python = python
  log(`python ${python}; load average ${results.machine.loadavgAtStart}`)
  if (wanted('start')) await serveStartUp()

  const main = await startServe('main')
  results.machine.sandbox = (await execute(main, 'print(1)')).structured.sandbox
  log(`main serve up in ${main.startMs.toFixed(0)} ms, sandbox ${results.machine.sandbox}`)
  if (wanted('trivial')) await trivialProgram(python)
  if (wanted('calls')) await sequentialCalls(main)
  if (wanted('fanout')) await fanOut(main)
  // Before the 16 MiB runs, which leave garbage behind.
  if (wanted('memory')) await memoryAfterPrograms(main)
  if (wanted('big')) await bigResult(main)
  results.machine.mainNotReady = main.notReady
  await main.close()

  if (wanted('tiers')) await sandboxTiers()
  if (wanted('context')) await contextSaved()
}

async function serveStartUp() {
  const starts = []
  for (let i = 0; i < reps(5, 2); i++) {
    const serve = await startServe(`start-${i}`)
    starts.push(serve.startMs)
    await serve.close()
  }
  record('serveStart', 'serve start → first tools/list answer', 'ms', starts)
  log('serve start-up done')
}

/**
 * (1) A trivial program with the warm pool against a bare interpreter start, and the MCP round trip
 * to the same server without a program (the floor under it), measured two ways:
 * - back to back, as the SPEC's reference figures are (an MCP round trip ~1.3 ms): a burst of
 *   calls with a warm child ready for each, the first of every burst (after a pause) not recorded.
 *   This is the SPEC §11 target.
 * - each after a 50 ms pause, as a client's call comes after the model has thought. On a virtual
 *   machine whose CPUs sleep when idle, every process woken after a pause runs its first pass
 *   several times slower (a Python process: ~60 µs wake and 30 µs of work back to back, ~250 µs
 *   and ~250 µs after 50 ms idle); a program wakes three processes where a round trip wakes two.
 */
async function trivialProgram(python) {
  const bare = record('bareStart', `bare python -I -S -c pass`, 'ms', bareStartSamples(python, reps(30, 10)))
  const burst = 4
  const serve = await startServe('trivial', {servers: [], execution: {warm_pool: burst}})
  const series = {hot: [], hotFloor: [], paused: [], pausedFloor: []}
  for (let i = 0; i < reps(12, 4); i++) {
    await waitForPool(serve)
    await sleep(IDLE_MS)
    for (let k = 0; k < burst; k++) {
      const round = (await callTool(serve, 'list_callable_tools')).ms
      const ms = await trivial(serve)()
      if (k === 0 || i === 0) continue
      series.hotFloor.push(round)
      series.hot.push(ms)
    }
    // Interleaved with the bursts, so that both see the same machine.
    for (let k = 0; k < burst; k++) {
      await waitForPool(serve)
      await sleep(IDLE_MS)
      const round = (await callTool(serve, 'list_callable_tools')).ms
      await sleep(IDLE_MS)
      const ms = await trivial(serve)()
      if (i === 0) continue
      series.pausedFloor.push(round)
      series.paused.push(ms)
    }
  }
  if (serve.notReady > 0) results.notes.push(`trivial: pool not ready before ${serve.notReady} burst(s)`)
  await serve.close()
  const hot = record('trivialWarm', 'print(1) via execute_program, back to back', 'ms', series.hot)
  const hotFloor = record('mcpRoundTrip', 'MCP round trip, no program, back to back', 'ms', series.hotFloor)
  const paused = record('trivialPaused', 'print(1), each after a 50 ms pause', 'ms', series.paused)
  const pausedFloor = record(
    'mcpRoundTripPaused',
    'MCP round trip, each after a 50 ms pause',
    'ms',
    series.pausedFloor,
  )
  ratio('trivial', {
    label: 'trivial / bare start',
    value: hot.median / bare.median,
    target: 0.15,
    beside: 'trivialWarm',
  })
  ratio('mcpFloor', {
    label: 'floor / bare start',
    value: hotFloor.median / bare.median,
    beside: 'mcpRoundTrip',
  })
  ratio('trivialPaused', {
    label: 'paused / bare start',
    value: paused.median / bare.median,
    beside: 'trivialPaused',
  })
  ratio('mcpFloorPaused', {
    label: 'floor / bare start',
    value: pausedFloor.median / bare.median,
    beside: 'mcpRoundTripPaused',
  })
  log('trivial program done')
}

/**
 * (2) 300 sequential cheap calls from one program vs the same calls by an SDK client directly to the
 * same kind of server; 300 helper calls (answered by ptc-mcp itself) show the channel alone.
 */
async function sequentialCalls(main) {
  const n = 300
  const callsCode = timedLoop('await mcp__bench__echo(text="x")', n)
  const helperCode = timedLoop('await server_status()', n)
  const direct = await connectClient('bench-direct', process.execPath, [BENCH_SERVER])
  const callDirect = () => direct.client.callTool({name: 'echo', arguments: {text: 'x'}})
  for (let i = 0; i < 50; i++) await callDirect()
  await execute(main, callsCode)
  await execute(main, helperCode)
  const [directMs, programMs, wholeMs, helperMs] = [[], [], [], []]
  for (let rep = 0; rep < reps(7, 3); rep++) {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) await callDirect()
    directMs.push(performance.now() - t0)
    await waitForPool(main)
    const run = await execute(main, callsCode)
    wholeMs.push(run.ms)
    programMs.push(printedNumber(run.structured))
    await waitForPool(main)
    helperMs.push(printedNumber((await execute(main, helperCode)).structured))
  }
  await direct.close()
  const p = record('callsProgram', `${n} sequential calls inside one program`, 'ms', programMs)
  const d = record('callsDirect', `${n} calls, SDK client → server directly`, 'ms', directMs)
  record('callsProgramWhole', `${n} calls, whole execute_program`, 'ms', wholeMs)
  const h = record('helperCalls', `${n} helper calls (channel only, no server)`, 'ms', helperMs)
  ratio('perCall', {
    label: 'program / direct',
    value: p.median / d.median,
    target: 1.3,
    beside: 'callsProgram',
  })
  ratio('channelShare', {
    label: 'channel alone / direct',
    value: h.median / d.median,
    beside: 'helperCalls',
  })
  log('sequential calls done')
}

/** (3) Fan-out: 64 calls to a 50 ms tool, 8 at once: ideal 400 ms. */
async function fanOut(main) {
  const code = [
    'import asyncio, time',
    't = time.perf_counter()',
    'await asyncio.gather(*[mcp__bench__sleep(ms=50) for _ in range(64)])',
    'print((time.perf_counter() - t) * 1000)',
  ].join('\n')
  const inProgram = []
  const whole = []
  await execute(main, code)
  for (let rep = 0; rep < reps(7, 3); rep++) {
    await waitForPool(main)
    const run = await execute(main, code)
    whole.push(run.ms)
    inProgram.push(printedNumber(run.structured))
  }
  const f = record('fanout', '64 × 50 ms tool, 8 at once, in program', 'ms', inProgram)
  record('fanoutWhole', '64 × 50 ms tool, whole execute_program', 'ms', whole)
  ratio('fanout', {label: 'fan-out / ideal 400 ms', value: f.median / 400, target: 1.25, beside: 'fanout'})
  log('fan-out done')
}

/** The server's memory after 10 and after 200 programs. */
async function memoryAfterPrograms(main) {
  const total = reps(200, 40)
  let count = 0
  const rss = {}
  const runUntil = async (upTo) => {
    while (count < upTo) {
      // Two at a time: one takes the warm child, the other starts its own.
      await Promise.all([execute(main, 'print(1)'), execute(main, 'x = [1] * 1000')])
      count += 2
    }
    await waitForPool(main)
    await sleep(300)
    rss[upTo] = memory(main.pid).rss / MiB
  }
  await runUntil(10)
  await runUntil(total)
  results.series.rssAfterPrograms = {label: 'serve RSS after N programs', unit: 'MiB', ...rss}
  ratio('rssGrowth', {
    label: `RSS after ${total} / after 10 programs`,
    value: rss[total] / rss[10],
    beside: 'rssAfterPrograms',
  })
  log('memory done')
}

/** (4) A 16 MiB result reaches the program, a summary comes back; the server's peak RSS growth. */
async function bigResult(main) {
  const code = [
    `rows = await mcp__bench__big(bytes=${BIG_BYTES})`,
    'print(len(rows), round(sum(r["amount"] for r in rows), 2))',
  ].join('\n')
  const latency = []
  const growth = []
  await execute(main, code) // the bench server builds (and keeps) its 16 MiB answer
  for (let rep = 0; rep < reps(7, 2); rep++) {
    await waitForPool(main)
    const before = memory(main.pid)
    resetPeak(main.pid)
    const run = await execute(main, code)
    latency.push(run.ms)
    growth.push((memory(main.pid).hwm - before.rss) / MiB)
  }
  const l = record('big', '16 MiB result → summary, execute_program', 'ms', latency)
  const g = record('bigRss', 'serve peak RSS growth during it', 'MiB', growth)
  ratio('bigLatency', {
    label: 'seconds',
    value: l.median / 1000,
    target: 1.5,
    comparison: '<',
    unit: 's',
    beside: 'big',
  })
  ratio('bigMemory', {
    label: 'max growth / 16 MiB',
    value: g.max / (BIG_BYTES / MiB),
    target: 4,
    comparison: '<',
    beside: 'bigRss',
  })
  log('16 MiB done')
}

/** Cold start (warm_pool 0) vs warm pool, and what each sandbox tier costs. */
async function sandboxTiers() {
  const tiers = [
    {key: 'none', label: 'none', execution: {sandbox: 'none'}},
    {
      key: 'landlock',
      label: 'linux, PTC_MCP_BWRAP=0',
      execution: {sandbox: 'linux'},
      env: {PTC_MCP_BWRAP: '0'},
    },
    {key: 'bwrap', label: 'linux', execution: {sandbox: 'linux'}},
  ]
  results.tiers = {}
  for (const tier of tiers) {
    const times = {}
    for (const [mode, pool, samples] of [
      ['warm', 1, reps(20, 6)],
      ['cold', 0, reps(12, 4)],
    ]) {
      const serve = await startServe(`${tier.key}-${mode}`, {
        servers: [],
        execution: {...tier.execution, warm_pool: pool},
        env: tier.env,
      })
      times.sandbox = (await execute(serve, 'print(1)')).structured.sandbox
      times[mode] = record(
        `${tier.key}${mode === 'warm' ? 'Warm' : 'Cold'}`,
        `print(1) ${mode}, sandbox: ${tier.label}`,
        'ms',
        await pooledSamples(serve, samples, 2, trivial(serve)),
      ).median
      if (serve.notReady > 0)
        results.notes.push(`${serve.label}: pool not ready before ${serve.notReady} run(s)`)
      await serve.close()
    }
    results.tiers[tier.key] = {
      label: tier.label,
      sandbox: times.sandbox,
      warmMedian: times.warm,
      coldMedian: times.cold,
    }
    log(`tier ${times.sandbox} done`)
  }
  const {bwrap} = results.tiers
  ratio('coldWarm', {label: 'cold / warm', value: bwrap.coldMedian / bwrap.warmMedian, beside: 'bwrapCold'})
}

/**
 * (5) Context saved on the bundled example workload: what reaches the model through execute_program
 * vs the text of every tool result if the model called the tools itself.
 */
async function contextSaved() {
  const example = await startServe('example', {
    servers: [{name: 'finance', command: process.execPath, args: [FINANCE_SERVER]}],
  })
  const programs = ['revenue-trend.py', 'ledger-summary.py']
  let viaProgram = 0
  for (const file of programs) {
    const run = await execute(example, readFileSync(join(ROOT, 'examples', 'programs', file), 'utf8'))
    viaProgram += Buffer.byteLength(run.text)
  }
  await example.close()
  const finance = await connectClient('bench-context', process.execPath, [FINANCE_SERVER])
  const calls = [
    ...['ACME', 'GLOBEX', 'INITECH'].map((ticker) => ['get_income_statements', {ticker, quarters: 8}]),
    ...['2025-Q3', '2025-Q4'].map((quarter) => ['get_transactions', {ticker: 'ACME', quarter}]),
  ]
  let direct = 0
  for (const [name, args] of calls) {
    const result = await finance.client.callTool({name, arguments: args})
    for (const item of result.content) if (item.type === 'text') direct += Buffer.byteLength(item.text)
  }
  await finance.close()
  results.context = {programs, calls: calls.length, directBytes: direct, programBytes: viaProgram}
  ratio('contextSaved', {label: 'bytes saved', value: (1 - viaProgram / direct) * 100, unit: '%'})
  log('context done')
}

// -------------------------------------------------------------------------------------------------
// Report

function fmt(value, unit) {
  if (value === undefined || Number.isNaN(value)) return ''
  if (unit === 'ms')
    return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 2 : 1)} ms`
  if (unit === 'MiB') return `${value.toFixed(1)} MiB`
  return String(value)
}

function fmtRatio(r) {
  if (r.unit === '%') return `${r.value.toFixed(1)} %`
  if (r.unit === 's') return `${r.value.toFixed(2)} s`
  return `${r.value.toFixed(r.value < 10 ? 2 : 1)}×`
}

function fmtTarget(r) {
  if (r.target === null) return ''
  const op = r.comparison === '<' ? '<' : '≤'
  return r.unit === 's' ? `${op} ${r.target} s` : `${op} ${r.target}×`
}

function verdict(r) {
  if (r?.pass === true) return 'PASS'
  if (r?.pass === false) return 'FAIL'
  return ''
}

function render(rows, leftColumns = 1) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)))
  const line = (row) =>
    row
      .map((cell = '', i) => (i < leftColumns ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd()
  return [
    line(rows[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(1).map((row) => line(row)),
  ].join('\n')
}

function table() {
  const ratioBeside = new Map(
    Object.values(results.ratios)
      .filter((r) => r.beside)
      .map((r) => [r.beside, r]),
  )
  const header = ['measurement', 'n', 'median', 'p90', 'min', 'max', 'ratio', 'of', 'target', '']
  const rows = [header]
  for (const [key, entry] of Object.entries(results.series)) {
    if (entry.median === undefined) continue
    const r = ratioBeside.get(key)
    rows.push([
      entry.label,
      String(entry.n),
      ...['median', 'p90', 'min', 'max'].map((k) => fmt(entry[k], entry.unit)),
      r ? fmtRatio(r) : '',
      r ? r.label : '',
      r ? fmtTarget(r) : '',
      verdict(r),
    ])
  }
  const lines = [render(rows)]
  const rssAfter = results.series.rssAfterPrograms
  if (rssAfter) {
    const counts = Object.keys(rssAfter).filter((k) => /^\d+$/.test(k))
    const growth = results.ratios.rssGrowth
    lines.push(
      '',
      `serve RSS after ${counts.map((c) => `${c} programs ${rssAfter[c].toFixed(1)} MiB`).join(', after ')}` +
        (growth ? ` (${fmtRatio(growth)})` : ''),
    )
  }
  if (results.tiers) {
    const tierRows = [
      ['sandbox tier (execution.sandbox)', 'reported as', 'warm median', 'cold median', 'cold − warm'],
    ]
    for (const tier of Object.values(results.tiers)) {
      tierRows.push([
        tier.label,
        tier.sandbox,
        fmt(tier.warmMedian, 'ms'),
        fmt(tier.coldMedian, 'ms'),
        fmt(tier.coldMedian - tier.warmMedian, 'ms'),
      ])
    }
    lines.push('', render(tierRows, 2))
  }
  if (results.context) {
    const c = results.context
    lines.push(
      '',
      `context saved: ${results.ratios.contextSaved.value.toFixed(1)} % — ${c.calls} tool results called directly = ` +
        `${c.directBytes} bytes; the 2 example programs through execute_program = ${c.programBytes} bytes`,
    )
  }
  for (const note of results.notes) lines.push(`note: ${note}`)
  return lines.join('\n')
}

try {
  await main()
  results.totalSeconds = (performance.now() - startedAt) / 1000
  results.machine.loadavgAtEnd = loadavg()
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(
    `${table()}\n\nbench: ${results.totalSeconds.toFixed(0)} s on ${results.machine.cpus} CPUs, ` +
      `load average ${results.machine.loadavgAtStart} → ${results.machine.loadavgAtEnd}; bench/results.json\n`,
  )
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exitCode = 1
} finally {
  await Promise.allSettled([...open].map((handle) => handle.close()))
  rmSync(workDir, {recursive: true, force: true})
}
