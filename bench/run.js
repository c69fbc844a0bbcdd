#!/usr/bin/env node
// `npm run bench`: SPEC §11 measured side by side in one run, against the BUILT server
// (`node bin/run.js serve`), driven by real MCP clients (SDK v2) over stdio, with a plain-JS
// downstream server (bench/bench-server.js) and the bundled example. Prints a table and writes
// bench/results.json. Never run from the tests: timing belongs here, not in assertions.
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'
import {fileURLToPath} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const RUN_JS = join(ROOT, 'bin', 'run.js')
const BENCH_SERVER = join(ROOT, 'bench', 'bench-server.js')
const RESULTS = join(ROOT, 'bench', 'results.json')
const MiB = 1024 * 1024
const BIG_BYTES = 16 * MiB
const QUICK = process.argv.includes('--quick')
const ONLY = process.argv.find((arg) => arg.startsWith('--only='))?.slice(7).split(',')

const startedAt = performance.now()
const workDir = mkdtempSync(join(tmpdir(), 'ptc-bench-'))
const open = new Set()
const results = {machine: machineInfo(), series: {}, ratios: {}, notes: []}

// ---------------------------------------------------------------------------------------------
// Helpers

function machineInfo() {
  const cpus = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? 'unknown'
  return {
    node: process.version,
    cpus: Number(execFileSync('nproc', {encoding: 'utf8'}).trim()),
    cpu: cpus,
    loadavgAtStart: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  }
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
  const median =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2
  return {n: sorted.length, median, p90: at(0.9), min: sorted[0], max: sorted.at(-1)}
}

function record(key, label, unit, samples) {
  const entry = {label, unit, ...stats(samples), samples: samples.map((s) => Math.round(s * 1000) / 1000)}
  results.series[key] = entry
  return entry
}

function ratio(key, label, value, target, comparison = '<=') {
  const pass = target === null ? null : comparison === '<=' ? value <= target : value < target
  results.ratios[key] = {label, value, target, comparison, pass}
  return value
}

function log(message) {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1).padStart(5)
  process.stderr.write(`[bench ${seconds}s] ${message}\n`)
}

function realPython() {
  const out = execFileSync('python3', ['-c', 'import os, sys; print(os.path.realpath(sys.executable))'], {
    encoding: 'utf8',
  })
  return out.trim()
}

/** All processes: pid -> {ppid, cmdline}. */
function processTable() {
  const table = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      table.set(Number(name), {ppid})
    } catch {
      // gone
    }
  }
  return table
}

function descendants(pid, table = processTable()) {
  const found = []
  const queue = [pid]
  while (queue.length > 0) {
    const parent = queue.shift()
    for (const [child, info] of table) {
      if (info.ppid === parent) {
        found.push(child)
        queue.push(child)
      }
    }
  }
  return found
}

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8')
  } catch {
    return ''
  }
}

/** Python program children of a serve process that wait for a program (in the event loop's epoll). */
function readyChildren(servePid) {
  return descendants(servePid).filter(
    (pid) => readProc(pid, 'cmdline').includes('runner.py') && readProc(pid, 'wchan') === 'do_epoll_wait',
  ).length
}

/** Waits until the warm pool of `servePid` has `size` children ready (bounded), then a short settle. */
async function waitForPool(servePid, size) {
  const deadline = performance.now() + 5000
  while (performance.now() < deadline) {
    if (readyChildren(servePid) >= size) {
      await sleep(15)
      return true
    }
    await sleep(10)
  }
  return false
}

function memory(pid) {
  const status = readProc(pid, 'status')
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return {rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024}
}

function resetPeak(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

/** A real MCP client (SDK v2, default handshake) of a stdio server. */
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

/** Starts `ptc-mcp serve` with a generated config; resolves once tools/list answered. */
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
  // JSON is YAML.
  writeFileSync(configPath, JSON.stringify(config, null, 2))
  const t0 = performance.now()
  const serve = await connectClient(`bench-${label}`, process.execPath, [RUN_JS, 'serve', '--config', configPath], env)
  await serve.client.listTools()
  serve.startMs = performance.now() - t0
  serve.config = config
  return serve
}

async function execute(serve, code) {
  const t0 = performance.now()
  const result = await serve.client.callTool({name: 'execute_program', arguments: {code}}, {timeout: 120_000})
  const ms = performance.now() - t0
  const structured = result.structuredContent
  if (result.isError || !structured?.ok) {
    throw new Error(`program failed:\n${result.content?.[0]?.text}\n--- serve stderr ---\n${serve.stderr()}`)
  }
  return {ms, result, structured, text: result.content[0].text}
}

/** Waits for the program child to be ready, then times `print(1)` end to end; `reps` samples. */
async function trivialSamples(serve, reps, warmups, label = "main") {
  const size = serve.config.execution.warm_pool
  const samples = []
  let notReady = 0
  for (let i = 0; i < warmups + reps; i++) {
    if (size > 0 && !(await waitForPool(serve.pid, size))) notReady++
    else if (size === 0) await sleep(30)
    const {ms} = await execute(serve, 'print(1)')
    if (i >= warmups) samples.push(ms)
  }
  if (notReady > 0) results.notes.push(`${label}: pool not ready before ${notReady} run(s)`)
  return samples
}

function bareStartSamples(python, reps) {
  const samples = []
  for (let i = 0; i < reps + 3; i++) {
    const t0 = performance.now()
    const run = spawnSync(python, ['-I', '-S', '-c', 'pass'], {stdio: 'ignore'})
    const ms = performance.now() - t0
    if (run.status !== 0) throw new Error(`${python} -I -S -c pass failed`)
    if (i >= 3) samples.push(ms)
  }
  return samples
}

function printedNumber(structured) {
  const value = Number(structured.output.trim().split('\n').at(-1))
  if (!Number.isFinite(value)) throw new Error(`expected a number, the program printed: ${structured.output}`)
  return value
}

const wanted = (name) => !ONLY || ONLY.includes(name)
const reps = (full, quick) => (QUICK ? quick : full)

// ---------------------------------------------------------------------------------------------
// Scenarios

async function main() {
  const python = realPython()
  results.machine.python = python
  log(`python: ${python}; load average ${results.machine.loadavgAtStart}`)

  // Serve start-up, five times: spawn to the first tools/list answer.
  if (wanted('start')) {
    const starts = []
    for (let i = 0; i < reps(5, 2); i++) {
      const serve = await startServe(`start-${i}`)
      starts.push(serve.startMs)
      await serve.close()
    }
    record('serveStart', 'serve start → first tools/list', 'ms', starts)
    log('serve start done')
  }

  const main = await startServe('main')
  log(`main serve up (${main.startMs.toFixed(0)} ms); sandbox tier: ${(await execute(main, 'print(1)')).structured.sandbox}`)

  // (1) Trivial program through execute_program with the warm pool vs a bare interpreter start.
  if (wanted('trivial')) {
    const bare = record('bareStart', `bare ${python} -I -S -c pass`, 'ms', bareStartSamples(python, reps(30, 10)))
    const warm = record('trivialWarm', 'print(1) via execute_program, warm pool', 'ms', await trivialSamples(main, reps(40, 10), 5))
    ratio('trivial', 'trivial program (warm) / bare python start', warm.median / bare.median, 0.15)
    log('trivial done')
  }

  // (2) 300 sequential cheap calls from one program vs the same calls by an SDK client directly.
  if (wanted('calls')) {
    const n = 300
    const code = [
      'import time',
      't = time.perf_counter()',
      `for i in range(${n}):`,
      '    await mcp__bench__echo(text="x")',
      'print((time.perf_counter() - t) * 1000)',
    ].join('\n')
    const inProgram = []
    const endToEnd = []
    const direct = []
    const directServer = await connectClient('bench-direct', process.execPath, [BENCH_SERVER])
    const callDirect = () => directServer.client.callTool({name: 'echo', arguments: {text: 'x'}})
    for (let i = 0; i < 50; i++) await callDirect()
    await execute(main, code) // warm-up
    // Interleaved, so that both see the same machine load.
    for (let rep = 0; rep < reps(7, 3); rep++) {
      let t0 = performance.now()
      for (let i = 0; i < n; i++) await callDirect()
      direct.push(performance.now() - t0)
      await waitForPool(main.pid, 1)
      t0 = performance.now()
      const run = await execute(main, code)
      endToEnd.push(performance.now() - t0)
      inProgram.push(printedNumber(run.structured))
    }
    await directServer.close()
    const d = record('callsDirect', `${n} sequential calls, SDK client direct`, 'ms', direct)
    const p = record('callsProgram', `${n} sequential calls inside one program`, 'ms', inProgram)
    record('callsProgramE2E', `${n} calls, whole execute_program`, 'ms', endToEnd)
    ratio('perCall', `${n} calls: program / direct`, p.median / d.median, 1.3)
    log('sequential calls done')
  }

  // (3) Fan-out: 64 calls to a 50 ms tool, 8 at once (max_concurrent_calls: 8) → ideal 400 ms.
  if (wanted('fanout')) {
    const code = [
      'import asyncio, time',
      't = time.perf_counter()',
      'await asyncio.gather(*[mcp__bench__sleep(ms=50) for _ in range(64)])',
      'print((time.perf_counter() - t) * 1000)',
    ].join('\n')
    const inProgram = []
    const endToEnd = []
    await execute(main, code)
    for (let rep = 0; rep < reps(7, 3); rep++) {
      await waitForPool(main.pid, 1)
      const t0 = performance.now()
      const run = await execute(main, code)
      endToEnd.push(performance.now() - t0)
      inProgram.push(printedNumber(run.structured))
    }
    const f = record('fanout', '64 × sleep(50 ms), 8 at once, in program', 'ms', inProgram)
    record('fanoutE2E', '64 × sleep(50 ms), whole execute_program', 'ms', endToEnd)
    ratio('fanout', 'fan-out / ideal 400 ms', f.median / 400, 1.25)
    log('fan-out done')
  }

  // (4) A 16 MiB result reaches the program; a summary comes back; the server's peak RSS growth.
  if (wanted('big')) {
    const code = [
      `rows = await mcp__bench__big(bytes=${BIG_BYTES})`,
      'print(len(rows), sum(r["amount"] for r in rows))',
    ].join('\n')
    const latency = []
    const growth = []
    await execute(main, code) // the bench server builds and caches its 16 MiB answer
    for (let rep = 0; rep < reps(5, 2); rep++) {
      await waitForPool(main.pid, 1)
      const before = memory(main.pid)
      resetPeak(main.pid)
      const run = await execute(main, code)
      const after = memory(main.pid)
      latency.push(run.ms)
      growth.push((after.hwm - before.rss) / MiB)
    }
    const l = record('big', '16 MiB result → summary, whole execute_program', 'ms', latency)
    const g = record('bigRss', 'serve peak RSS growth during the 16 MiB call', 'MiB', growth)
    ratio('bigLatency', '16 MiB round trip, seconds', l.median / 1000, 1.5, '<')
    ratio('bigMemory', 'peak RSS growth / result size', g.max / (BIG_BYTES / MiB), 4, '<')
    log('16 MiB done')
  }

  // Server memory after 10 and after 200 programs.
  if (wanted('memory')) {
    const rssAfter = {}
    let count = 0
    const batch = async (upTo) => {
      while (count < upTo) {
        // Two at a time: one takes the warm child, the other starts its own.
        await Promise.all([execute(main, 'print(1)'), execute(main, 'x = 2')])
        count += 2
      }
      await waitForPool(main.pid, 1)
      await sleep(200)
      return memory(main.pid).rss / MiB
    }
    rssAfter[10] = await batch(10)
    rssAfter[200] = await batch(reps(200, 40))
    results.series.rssAfterPrograms = {label: 'serve RSS after N programs', unit: 'MiB', ...rssAfter}
    log('memory done')
  }
  await main.close()

  // Cold start vs warm pool, and what each sandbox tier costs.
  if (wanted('tiers')) {
    const tiers = [
      {key: 'none', label: 'sandbox none', execution: {sandbox: 'none'}},
      {key: 'landlock', label: 'linux, no bwrap (PTC_MCP_BWRAP=0)', execution: {sandbox: 'linux'}, env: {PTC_MCP_BWRAP: '0'}},
      {key: 'bwrap', label: 'linux with bwrap', execution: {sandbox: 'linux'}},
    ]
    results.tiers = {}
    for (const tier of tiers) {
      const warmServe = await startServe(`${tier.key}-warm`, {servers: [], execution: tier.execution, env: tier.env})
      const sandbox = (await execute(warmServe, 'print(1)')).structured.sandbox
      const warm = record(`${tier.key}Warm`, `print(1) warm, ${tier.label}`, 'ms', await trivialSamples(warmServe, reps(20, 6), 3))
      await warmServe.close()
      const coldServe = await startServe(`${tier.key}-cold`, {
        servers: [],
        execution: {...tier.execution, warm_pool: 0},
        env: tier.env,
      })
      const cold = record(`${tier.key}Cold`, `print(1) cold (warm_pool 0), ${tier.label}`, 'ms', await trivialSamples(coldServe, reps(12, 4), 2))
      await coldServe.close()
      results.tiers[tier.key] = {sandbox, warmMedian: warm.median, coldMedian: cold.median}
      log(`tier ${tier.key} (${sandbox}) done`)
    }
    const {bwrap} = results.tiers
    ratio('coldOverWarm', 'cold / warm (linux with bwrap)', bwrap.coldMedian / bwrap.warmMedian, null)
  }

  // (5) Context saved on the bundled example workload.
  if (wanted('context')) {
    const example = await startServe('example', {
      servers: [{name: 'finance', command: process.execPath, args: [join(ROOT, 'examples', 'finance-server.js')]}],
    })
    let viaProgram = 0
    const programs = ['revenue-trend.py', 'ledger-summary.py']
    for (const file of programs) {
      const run = await execute(example, readFileSync(join(ROOT, 'examples', 'programs', file), 'utf8'))
      viaProgram += Buffer.byteLength(run.text)
    }
    await example.close()
    // The same tool calls, made directly: what the model would have read.
    const finance = await connectClient('bench-context', process.execPath, [join(ROOT, 'examples', 'finance-server.js')])
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
    results.context = {programs, directBytes: direct, programBytes: viaProgram, calls: calls.length}
    ratio('contextSaved', 'context saved on the example workload, %', (1 - viaProgram / direct) * 100, null)
    log('context done')
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = (value, unit) => {
  if (value === undefined || Number.isNaN(value)) return '—'
  if (unit === 'ms') return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 2 : 1)} ms`
  if (unit === 'MiB') return `${value.toFixed(1)} MiB`
  return String(value)
}

function table() {
  const rows = [['measurement', 'n', 'median', 'p90', 'min', 'max']]
  for (const entry of Object.values(results.series)) {
    if (entry.median === undefined) continue
    rows.push([entry.label, String(entry.n), ...['median', 'p90', 'min', 'max'].map((k) => fmt(entry[k], entry.unit))])
  }
  const memoryRow = results.series.rssAfterPrograms
  const lines = [render(rows)]
  if (memoryRow) {
    const counts = Object.keys(memoryRow).filter((k) => /^\d+$/.test(k))
    lines.push('', `serve RSS after ${counts.map((c) => `${c} programs: ${memoryRow[c].toFixed(1)} MiB`).join('; ')}`)
  }
  if (results.tiers) {
    const tierRows = [['sandbox tier', 'warm median', 'cold median', 'cold − warm']]
    for (const tier of Object.values(results.tiers)) {
      tierRows.push([tier.sandbox, fmt(tier.warmMedian, 'ms'), fmt(tier.coldMedian, 'ms'), fmt(tier.coldMedian - tier.warmMedian, 'ms')])
    }
    lines.push('', render(tierRows))
  }
  const ratioRows = [['SPEC §11 ratio', 'measured', 'target', '']]
  for (const r of Object.values(results.ratios)) {
    const value = r.key === 'contextSaved' ? r.value.toFixed(1) : r.value.toFixed(3)
    ratioRows.push([
      r.label,
      value,
      r.target === null ? 'reported' : `${r.comparison === '<' ? '<' : '≤'} ${r.target}`,
      r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL',
    ])
  }
  lines.push('', render(ratioRows))
  if (results.context) {
    const c = results.context
    lines.push('', `context: ${c.calls} direct tool results = ${c.directBytes} bytes; 2 execute_program results = ${c.programBytes} bytes`)
  }
  for (const note of results.notes) lines.push(`note: ${note}`)
  return lines.join('\n')
}

function render(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)))
  const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n')
}

try {
  await main()
  results.totalSeconds = (performance.now() - startedAt) / 1000
  results.machine.loadavgAtEnd = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  for (const [key, r] of Object.entries(results.ratios)) r.key = key
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(`${table()}\n\nbench: ${results.totalSeconds.toFixed(0)} s; load average ${results.machine.loadavgAtStart} → ${results.machine.loadavgAtEnd}; results in bench/results.json\n`)
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exitCode = 1
} finally {
  await Promise.allSettled([...open].map((handle) => handle.close()))
  rmSync(workDir, {recursive: true, force: true})
}
