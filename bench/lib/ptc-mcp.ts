// ptc-mcp as a gateway under test: the BUILT server (`node bin/run.js serve`) with a generated
// config that leaves every latency setting at its shipped default.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'

import type {Bench} from './bench.js'
import type {Downstream, ToolCall} from './downstreams.js'
import type {Code, Gateway, GatewayKind, GatewayOptions, Program} from './gateway.js'

import {namespacedName} from '../../src/shared/naming.js'
import {connectTimed, type Launch, resultText, timedCall} from './client.js'
import {keywordArgs} from './gateway.js'
import {RUN_JS} from './paths.js'
import {readyChildren} from './proc.js'

/**
 * Set beside the shipped defaults: a count limit, not a latency setting (the default, 100, is
 * below the 300-call scenario). The bench reports it in results.json.
 */
export const PTC_SETTINGS = {max_tool_calls: 300}

export interface PtcOptions extends GatewayOptions {
  /** More `execution` settings (the sandbox-tier and cold-start extras only). */
  execution?: Record<string, unknown>
  env?: Record<string, string>
}

export interface PtcGateway extends Gateway {
  /** The config as written (JSON is YAML). */
  config: {servers: unknown[]; execution: Record<string, unknown>}
  pid: number
}

const call = (downstream: Downstream, {tool, args}: ToolCall): string =>
  `await ${namespacedName(downstream.name, tool)}(${keywordArgs(args, '=')})`

/** The program, timing itself with perf_counter and printing the milliseconds last. */
const timed = (lines: string[]): string =>
  [
    'import asyncio, time',
    't = time.perf_counter()',
    ...lines,
    'print((time.perf_counter() - t) * 1000)',
  ].join('\n')

export function ptcCode(program: Program, downstream: Downstream): Code {
  switch (program.kind) {
    case 'trivial': {
      return {code: 'print(1)'}
    }
    case 'calls': {
      return {code: timed([`for i in range(${program.n}):`, `    ${call(downstream, program.call)}`])}
    }
    case 'fanout': {
      const one = call(downstream, program.call).replace(/^await /, '')
      return {code: timed([`await asyncio.gather(*[${one} for _ in range(${program.n})])`])}
    }
    case 'big': {
      return {
        code: [
          `rows = ${call(downstream, program.call)}`,
          'print(len(rows), round(sum(r["amount"] for r in rows), 2))',
        ].join('\n'),
      }
    }
  }
}

/** A program's own timing: the last line it printed, as a number. */
function printedNumber(output: string): number | undefined {
  const value = Number(output.trim().split('\n').at(-1))
  return Number.isFinite(value) ? value : undefined
}

/** Writes the config into `options.dir` and says how serve is started with it. */
export function ptcLaunch(options: PtcOptions): {launch: Launch; config: PtcGateway['config']} {
  mkdirSync(options.dir, {recursive: true})
  const tmp = join(options.dir, 'tmp')
  mkdirSync(tmp, {recursive: true})
  const config = {
    servers: options.downstreams.map(({name, command, args}) => ({name, command, args})),
    execution: {...PTC_SETTINGS, ...options.execution},
    // The bench times calls, and its client cannot be asked: calls no rule covers run unasked.
    permissions: {ask_unlisted: false},
  }
  const configPath = join(options.dir, 'config.yaml')
  writeFileSync(configPath, JSON.stringify(config, null, 2))
  const launch = {
    command: process.execPath,
    args: [RUN_JS, 'serve', '--config', configPath],
    // Scratch, caches and artifacts inside the bench's own directory.
    env: {
      TMPDIR: tmp,
      XDG_CACHE_HOME: join(options.dir, 'cache'),
      XDG_STATE_HOME: join(options.dir, 'state'),
      ...options.env,
    },
  }
  return {launch, config}
}

export async function startPtc(options: PtcOptions): Promise<PtcGateway> {
  const {launch, config} = ptcLaunch(options)
  const {connection, startMs} = await connectTimed(`bench-${options.label}`, launch)
  if (connection.pid === undefined) throw new Error('serve has no pid')
  return {
    name: 'ptc-mcp',
    connection,
    config,
    pid: connection.pid,
    startMs,
    code: ptcCode,
    async run(code) {
      const {ms, result} = await timedCall(connection, 'execute_program', {code})
      const structured = result.structuredContent as {ok?: boolean; output?: string} | undefined
      const text = resultText(result)
      if (result.isError || !structured?.ok)
        throw new Error(`program failed:\n${text}\n--- serve stderr ---\n${connection.stderr()}`)
      return {ms, text, innerMs: printedNumber(structured.output ?? '')}
    },
    async roundTrip(downstream) {
      return (await timedCall(connection, 'list_callable_tools', {server: downstream.name})).ms
    },
    close: () => connection.close(),
  }
}

export const ptcMcp: GatewayKind = {
  name: 'ptc-mcp',
  unavailable: () => undefined as string | undefined,
  start: startPtc,
  launch: (options) => ptcLaunch(options).launch,
}

/**
 * Waits (bounded) until serve's warm pool is full, so that the next program takes a warm child.
 * Only the extras use this: the SPEC scenarios measure whatever the shipped pool has ready.
 * Returns false if the pool did not fill within 5 s.
 */
export async function waitForWarmPool(gateway: PtcGateway): Promise<boolean> {
  const size = Number(gateway.config.execution.warm_pool ?? 1)
  if (size === 0) {
    await sleep(30)
    return true
  }
  const deadline = performance.now() + 5000
  while (performance.now() < deadline) {
    if (readyChildren(gateway.pid) >= size) {
      // The `ready` message is on its way to the server: let it land.
      await sleep(15)
      return true
    }
    await sleep(10)
  }
  return false
}

/** The run's ptc-mcp and its first downstream, or nothing when either is not in this run. */
export async function ptcOnFirstDownstream(
  bench: Bench,
): Promise<{downstream: Downstream; ptc: PtcGateway} | undefined> {
  const [downstream] = bench.downstreams
  if (!downstream) return undefined
  const ptc = (await bench.gatewaysFor(downstream)).find((g) => g.name === 'ptc-mcp') as
    PtcGateway | undefined
  return ptc && {downstream, ptc}
}
