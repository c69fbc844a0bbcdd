// The floor as a gateway: bench/servers/sdk-floor-server.ts, the MCP SDK (v2) in Node with no
// interpreter and no sandbox. What it costs, every Node gateway on the SDK pays before its own work.

import type {Downstream} from './downstreams.js'
import type {Code, Gateway, GatewayKind, GatewayOptions, Program} from './gateway.js'

import {connectTimed, resultText, timedCall} from './client.js'
import {SDK_FLOOR_SERVER, TSX_LOADER_URL} from './paths.js'

export function floorCode(program: Program, downstream: Downstream): Code {
  if (program.kind === 'trivial') return {code: JSON.stringify({kind: 'trivial'})}
  const {kind, call} = program
  const n = kind === 'big' ? 1 : program.n
  return {code: JSON.stringify({kind, server: downstream.name, tool: call.tool, args: call.args, n})}
}

export async function startFloor(options: GatewayOptions): Promise<Gateway> {
  const {connection, startMs} = await connectTimed(`bench-${options.label}`, {
    command: process.execPath,
    args: ['--import', TSX_LOADER_URL, SDK_FLOOR_SERVER, JSON.stringify(options.downstreams)],
  })
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
}
