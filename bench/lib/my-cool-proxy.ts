// my-cool-proxy (npm `@karashiiro/my-cool-proxy`, a Node gateway with a Lua code mode) as a peer:
// its `execute` tool runs a Lua script in which each server is a global table of its tools
// (`bench.echo({text = "x"}):await()`). Measured when installed (bench/README.md).
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {setTimeout as sleep} from 'node:timers/promises'

import type {Downstream, ToolCall} from './downstreams.js'
import type {Code, Gateway, GatewayKind, GatewayOptions, Program} from './gateway.js'

import {connectTimed, type Launch, resultText, timedCall} from './client.js'
import {keywordArgs} from './gateway.js'
import {requirePeer} from './paths.js'

const PACKAGE = '@karashiiro/my-cool-proxy'
/** How long its servers may take to connect after its first answer (they connect after `initialized`). */
const READY_MS = 60_000

/** The package's command line, or why it cannot run: not installed, or its SQLite not built. */
export function coolProxyBin(): {path?: string; reason?: string} {
  let packageJson: string
  try {
    packageJson = requirePeer(`${PACKAGE}/package.json`).path
  } catch {
    return {reason: 'not installed (bench/README.md: npm install --prefix .bench-peers ...)'}
  }
  // better-sqlite3 (its session store, opened on every start) has a native part that
  // --ignore-scripts leaves unbuilt.
  try {
    const sqlite = dirname(createRequire(packageJson).resolve('better-sqlite3/package.json'))
    if (!existsSync(join(sqlite, 'build', 'Release', 'better_sqlite3.node')))
      return {reason: 'better-sqlite3 is not built (npm rebuild --prefix .bench-peers better-sqlite3)'}
  } catch {
    return {reason: 'better-sqlite3 is missing beside it'}
  }
  return {path: join(dirname(packageJson), 'bin', 'my-cool-proxy.mjs')}
}

/** Its Lua name for a server or tool: every non-word character an underscore. */
export const luaName = (name: string): string => name.replaceAll(/\W/g, '_').replace(/^(\d)/, '_$1')

const call = (downstream: Downstream, {tool, args}: ToolCall): string =>
  `${luaName(downstream.name)}.${luaName(tool)}({${keywordArgs(args, ' = ')}})`

export function luaCode(program: Program, downstream: Downstream): Code {
  if (program.kind === 'trivial') return {code: 'result(1)'}
  const one = call(downstream, program.call)
  switch (program.kind) {
    case 'calls': {
      return {code: `for i = 1, ${program.n} do ${one}:await() end\nresult(1)`}
    }
    case 'fanout': {
      // Its Lua awaits promises but has no concurrency limit of its own: 8 at a time, in batches.
      return {
        code: [
          `for b = 1, ${Math.ceil(program.n / 8)} do`,
          '  local pending = {}',
          `  for i = 1, 8 do pending[i] = ${one} end`,
          '  for i = 1, 8 do pending[i]:await() end',
          'end',
          'result(1)',
        ].join('\n'),
        note: 'in batches of 8 (no concurrency limit of its own)',
      }
    }
    case 'big': {
      return {
        code: [
          `local rows = ${one}:await()`,
          'local sum = 0',
          'for _, r in ipairs(rows) do sum = sum + r.amount end',
          'result(#rows .. " " .. sum)',
        ].join('\n'),
      }
    }
  }
}

/** The `server.tool(` calls in a script, as [server, tool] Lua names. */
export function luaCalls(script: string): Array<[string, string]> {
  const found = new Map<string, [string, string]>()
  for (const [, server, tool] of script.matchAll(/\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\(/g))
    if (!['_gateway', 'math', 'string', 'table'].includes(server!))
      found.set(`${server}.${tool}`, [server!, tool!])
  return [...found.values()]
}

/** Writes its config into `options.dir` and says how it is started with it. */
export function coolProxyLaunch(options: GatewayOptions): Launch {
  const bin = coolProxyBin()
  if (!bin.path) throw new Error(`my-cool-proxy: ${bin.reason}`)
  const home = join(options.dir, 'home')
  mkdirSync(home, {recursive: true})
  const config = {
    transport: 'stdio',
    mcpClients: Object.fromEntries(
      options.downstreams.map(({name, command, args}) => [name, {type: 'stdio', command, args}]),
    ),
  }
  const configPath = join(options.dir, 'config.json')
  writeFileSync(configPath, JSON.stringify(config, null, 2))
  // Its config, session database and logs in the gateway's own directory; nothing of the user's.
  return {
    command: process.execPath,
    args: [bin.path],
    cwd: options.dir,
    env: {
      CONFIG_PATH: configPath,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      XDG_CACHE_HOME: join(home, '.cache'),
    },
  }
}

export async function startCoolProxy(options: GatewayOptions): Promise<Gateway> {
  const {connection, startMs} = await connectTimed(`bench-${options.label}`, coolProxyLaunch(options))
  const listServers = async (): Promise<string> =>
    resultText((await timedCall(connection, 'list-servers')).result)
  const deadline = performance.now() + READY_MS
  const expected = `Available MCP Servers: ${options.downstreams.length}\n`
  while (options.downstreams.length > 0 && !(await listServers()).includes(expected)) {
    if (performance.now() > deadline) {
      await connection.close()
      throw new Error(`my-cool-proxy: its servers did not connect within ${READY_MS / 1000} s`)
    }
    await sleep(50)
  }
  // It refuses a tool no `tool-details` call has inspected in the session: each once, untimed.
  const inspected = new Set<string>()
  const inspect = async (script: string): Promise<void> => {
    for (const [luaServerName, luaToolName] of luaCalls(script)) {
      const key = `${luaServerName}.${luaToolName}`
      if (inspected.has(key)) continue
      const {result} = await timedCall(connection, 'tool-details', {luaServerName, luaToolName})
      if (result.isError) throw new Error(`my-cool-proxy: tool-details ${key}: ${resultText(result)}`)
      inspected.add(key)
    }
  }
  return {
    name: 'my-cool-proxy',
    connection,
    startMs,
    code: luaCode,
    async run(code) {
      await inspect(code)
      const {ms, result} = await timedCall(connection, 'execute', {script: code})
      const text = resultText(result)
      // Its error text ends in a Lua stack traceback: the message before it is enough.
      if (result.isError)
        throw new Error(
          `Lua script failed: ${text.split('stack traceback')[0]!.replaceAll(/\s+/g, ' ').trim()}`,
        )
      return {ms, text}
    },
    async roundTrip() {
      return (await timedCall(connection, 'list-servers')).ms
    },
    close: () => connection.close(),
  }
}

export const myCoolProxy: GatewayKind = {
  name: 'my-cool-proxy',
  unavailable: () => coolProxyBin().reason,
  start: startCoolProxy,
  launch: coolProxyLaunch,
}
