// The floor as a gateway: bench/servers/sdk-floor-server.ts, the MCP SDK (v2) in Node with no
// interpreter and no sandbox. What it costs, every Node gateway on the SDK pays before its own work.

import {transformSync} from 'esbuild'
import {mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Downstream} from './downstreams.js'
import type {Code, Gateway, GatewayKind, GatewayOptions, Program} from './gateway.js'

import {connectTimed, type Launch, resultText, timedCall} from './client.js'
import {ROOT, SDK_FLOOR_SERVER} from './paths.js'

let compiled: string | undefined

/**
 * The floor server as plain JavaScript, compiled once per process: started through tsx's loader,
 * its start would include tsx's own, which no gateway pays. Beside it, a link to our
 * node_modules for its imports; removed when the process exits.
 */
function floorScript(): string {
  if (compiled) return compiled
  const dir = mkdtempSync(join(tmpdir(), 'ptc-bench-floor-'))
  process.once('exit', () => rmSync(dir, {recursive: true, force: true}))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const script = join(dir, 'sdk-floor-server.mjs')
  const source = readFileSync(SDK_FLOOR_SERVER, 'utf8')
  writeFileSync(script, transformSync(source, {loader: 'ts', format: 'esm', target: 'node20'}).code)
  compiled = script
  return script
}

/** How the floor is started, reaching `options.downstreams`. */
export function floorLaunch(options: Pick<GatewayOptions, 'downstreams'>): Launch {
  return {command: process.execPath, args: [floorScript(), JSON.stringify(options.downstreams)]}
}

export function floorCode(program: Program, downstream: Downstream): Code {
  if (program.kind === 'trivial') return {code: JSON.stringify({kind: 'trivial'})}
  const {kind, call} = program
  const n = kind === 'big' ? 1 : program.n
  return {code: JSON.stringify({kind, server: downstream.name, tool: call.tool, args: call.args, n})}
}

export async function startFloor(options: GatewayOptions): Promise<Gateway> {
  const {connection, startMs} = await connectTimed(`bench-${options.label}`, floorLaunch(options))
  return {
    name: 'sdk-floor',
    connection,
    startMs,
    code: floorCode,
    async run(code) {
      const {ms, result} = await timedCall(connection, 'run_plan', {plan: code})
      const text = resultText(result)
      if (result.isError) throw new Error(`plan failed:\n${text}\n--- stderr ---\n${connection.stderr()}`)
      return {ms, text}
    },
    async roundTrip() {
      return (await timedCall(connection, 'noop')).ms
    },
    close: () => connection.close(),
  }
}

export const sdkFloor: GatewayKind = {
  name: 'sdk-floor',
  unavailable: () => undefined as string | undefined,
  start: startFloor,
  launch: floorLaunch,
}
