// slop-mcp (`@standardbeagle/slop-mcp`, a Go binary) as a peer gateway: its `run_slop` tool runs
// a SLOP script that calls the downstream servers' tools. Measured when installed (bench/README.md).
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import type {Downstream, ToolCall} from './downstreams.js'
import type {Code, Gateway, GatewayKind, GatewayOptions, Program} from './gateway.js'

import {connectTimed, type Launch, resultText, timedCall} from './client.js'
import {keywordArgs} from './gateway.js'
import {requirePeer} from './paths.js'

const PACKAGE = '@standardbeagle/slop-mcp'
/** A slop-mcp binary to use instead of the installed package's. */
export const SLOP_MCP_ENV = 'PTC_BENCH_SLOP_MCP'

/** The binary: $PTC_BENCH_SLOP_MCP, or the one the installed package picks for this platform. */
export function slopBinary(): {path?: string; reason?: string} {
  const fromEnv = process.env[SLOP_MCP_ENV]
  if (fromEnv)
    return existsSync(fromEnv) ? {path: fromEnv} : {reason: `${SLOP_MCP_ENV}=${fromEnv} does not exist`}
  try {
    // Its index.js resolves the bundled binary and makes it executable (install scripts may not have run).
    const found = requirePeer(PACKAGE)
    const {getBinaryPath} = found.require(found.path) as {getBinaryPath(): string}
    return {path: getBinaryPath()}
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (message.includes('Cannot find module'))
      return {reason: `not installed (bench/README.md: npm install --prefix .bench-peers ...)`}
    return {reason: message}
  }
}

/** SLOP has no concurrency, and names a tool `server.tool` (so a tool name must be an identifier). */
function call(downstream: Downstream, {tool, args}: ToolCall): string | undefined {
  if (!/^[A-Za-z_]\w*$/.test(tool)) return undefined
  return `${downstream.name}.${tool}(${keywordArgs(args, ': ')})`
}

export function slopCode(program: Program, downstream: Downstream): Code | undefined {
  if (program.kind === 'trivial') return {code: 'emit(1)'}
  const one = call(downstream, program.call)
  if (one === undefined) return undefined
  switch (program.kind) {
    case 'calls': {
      return {code: [`for i in range(${program.n}):`, `  ${one}`, 'emit(1)'].join('\n')}
    }
    case 'fanout': {
      return {
        code: [`for i in range(${program.n}):`, `  ${one}`, 'emit(1)'].join('\n'),
        note: 'one call at a time (SLOP has no concurrency)',
      }
    }
    case 'big': {
      // A for loop over the rows would pass SLOP's iteration limit (100,000); map does not.
      return {
        code: [
          'def amount(r):',
          '  return r["amount"]',
          `rows = ${one}`,
          'emit(len(rows), round(sum(map(rows, amount))))',
        ].join('\n'),
      }
    }
  }
}

const kdlString = (value: string): string => JSON.stringify(value)

/** Writes its config into `options.dir` and says how it is started with it. */
export function slopLaunch(options: GatewayOptions): Launch {
  const binary = slopBinary()
  if (!binary.path) throw new Error(`slop-mcp: ${binary.reason}`)
  const home = join(options.dir, 'home')
  mkdirSync(home, {recursive: true})
  // The project config (.slop-mcp.kdl in the working directory); HOME elsewhere keeps the user's out.
  const kdl = options.downstreams.map(
    ({name, command, args}) =>
      `mcp ${kdlString(name)} {\n    command ${kdlString(command)}\n    args ${args.map(kdlString).join(' ')}\n}\n`,
  )
  writeFileSync(join(options.dir, '.slop-mcp.kdl'), kdl.join(''))
  return {
    command: binary.path,
    args: ['serve'],
    cwd: options.dir,
    env: {HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share')},
  }
}

export async function startSlop(options: GatewayOptions): Promise<Gateway> {
  const {connection, startMs} = await connectTimed(`bench-${options.label}`, slopLaunch(options))
  return {
    name: 'slop-mcp',
    connection,
    startMs,
    cannot: 'SLOP names a tool server.tool, so a hyphenated tool name cannot be called',
    code: slopCode,
    async run(code) {
      const {ms, result} = await timedCall(connection, 'run_slop', {script: code})
      const text = resultText(result)
      if (result.isError)
        throw new Error(`slop script failed:\n${text}\n--- slop-mcp stderr ---\n${connection.stderr()}`)
      return {ms, text}
    },
    async roundTrip() {
      return (await timedCall(connection, 'slop_help', {name: 'now'})).ms
    },
    close: () => connection.close(),
  }
}

export const slopMcp: GatewayKind = {
  name: 'slop-mcp',
  unavailable: () => slopBinary().reason,
  start: startSlop,
  launch: slopLaunch,
}
