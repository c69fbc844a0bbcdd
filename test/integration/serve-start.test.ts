// @tier integration
// serve's start (SPEC §5): the first answer goes out before anything else is started. A downstream
// server that never answers and a Python that never answers delay none of server/discover,
// initialize and tools/list; the program engine and the downstream code start only after the
// first answer, which serve's debug log shows in order.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {executionSchema} from '../../src/config/schema.js'
import {executeProgramDescription} from '../../src/mcp/descriptions.js'
import {fixtureCommand} from '../fixtures/start-fixture.js'
import {initialize, jsonLines, type Message} from '../helpers/json-rpc.js'
import {descendants, isAlive} from '../helpers/processes.js'
import {prepareServe, type ServeSetup, spawnCli} from '../helpers/serve.js'

const MODERN = '2026-07-28'
const envelope = {
  _meta: {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': {name: 'start-test', version: '1'},
    'io.modelcontextprotocol/clientCapabilities': {},
  },
}
const EXECUTION = {timeout_seconds: 17, max_tool_calls: 42, max_concurrent_calls: 3}

/** The debug lines that mark each step, in the order they must come. */
const ANSWERED = 'debug: first request answered'
const ENGINE = 'debug: starting the program engine'
const DOWNSTREAM_CODE = 'debug: downstream code loaded'
const CONNECTING = 'debug: connecting (attempt 1)'

interface Started {
  child: ChildProcessWithoutNullStreams
  request(method: string, params?: unknown): Promise<Message>
  notify(method: string): void
  stderr(): string
}

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/**
 * A config whose downstream server never answers initialize and whose `execution.python` never
 * answers either (it records its pid, so the test can end it).
 */
function stuckSetup(): {setup: ServeSetup; pythonPids: () => number[]} {
  const hanging = fixtureCommand(['--hang-start'])
  const setup = prepareServe({servers: [{name: 'stuck', command: hanging.command, args: hanging.args}]})
  const dir = dirname(setup.configPath)
  const pids = join(dir, 'python-pids')
  const python = join(dir, 'python-that-hangs')
  writeFileSync(python, `#!/bin/sh\necho $$ >> '${pids}'\nexec sleep 120\n`)
  chmodSync(python, 0o755)
  writeFileSync(
    setup.configPath,
    JSON.stringify({
      servers: [{name: 'stuck', command: hanging.command, args: hanging.args}],
      execution: {...EXECUTION, python},
    }),
  )
  const pythonPids = (): number[] => {
    try {
      return readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number)
    } catch {
      return []
    }
  }
  cleanups.push(() => {
    for (const pid of pythonPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    setup.cleanup()
  })
  return {setup, pythonPids}
}

function startServe(setup: ServeSetup): Started {
  const child = spawn(process.execPath, [...setup.args, '--log-level', 'debug'], {
    env: setup.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
  })
  cleanups.push(async () => {
    // Not a graceful stop: that waits for the hanging Python. Everything it started goes with it.
    const started = descendants(child.pid!)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
    for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  })
  const lines = jsonLines(child.stdout)
  let nextId = 1
  const send = (message: Message): void => {
    child.stdin.write(`${JSON.stringify(message)}\n`)
  }
  return {
    child,
    request(method, params) {
      const id = nextId++
      send({jsonrpc: '2.0', id, method, ...(params === undefined ? {} : {params})})
      return lines.waitFor((m) => m.id === id && m.method === undefined, 20_000)
    },
    notify: (method) => send({jsonrpc: '2.0', method}),
    stderr: () => stderr,
  }
}

/** The position of `line` in serve's log; fails when it is not there. */
function position(log: string, line: string): number {
  const at = log.indexOf(line)
  expect(at, `"${line}" in serve's log:\n${log}`).toBeGreaterThanOrEqual(0)
  return at
}

function expectToolsFor(listing: Message): void {
  const {tools} = listing.result as {tools: Array<{name: string; description: string}>}
  expect(tools.map((t) => t.name).sort()).toEqual(['execute_program', 'inspect_tool', 'list_callable_tools'])
  // The description states the limits of this config, exactly as the server builds it.
  const execute = tools.find((t) => t.name === 'execute_program')!
  expect(execute.description).toBe(executeProgramDescription(executionSchema.parse(EXECUTION)))
}

describe('serve start', () => {
  it('2026-07-28: answers server/discover and tools/list while a downstream server and Python hang; starts them only after', async () => {
    const {setup, pythonPids} = stuckSetup()
    const serve = startServe(setup)

    const discovered = await serve.request('server/discover', envelope)
    expect((discovered.result as {supportedVersions: string[]}).supportedVersions).toContain(MODERN)
    expectToolsFor(await serve.request('tools/list', envelope))

    // A client that never initializes: the downstream servers connect after the initialize wait.
    await expect.poll(() => serve.stderr().includes(CONNECTING), {timeout: 20_000}).toBe(true)
    // Python was started (and hangs), after the answer.
    await expect.poll(() => pythonPids().length > 0, {timeout: 20_000}).toBe(true)
    const log = serve.stderr()
    const answered = position(log, ANSWERED)
    expect(position(log, ENGINE)).toBeGreaterThan(answered)
    expect(position(log, DOWNSTREAM_CODE)).toBeGreaterThan(answered)
    expect(position(log, CONNECTING)).toBeGreaterThan(answered)
  })

  it('2025-11-25: answers initialize and tools/list while a downstream server and Python hang; starts them only after', async () => {
    const {setup} = stuckSetup()
    const serve = startServe(setup)

    const initialized = await serve.request('initialize', initialize(0, '2025-11-25').params)
    expect((initialized.result as {protocolVersion: string}).protocolVersion).toBe('2025-11-25')
    serve.notify('notifications/initialized')
    expectToolsFor(await serve.request('tools/list'))

    await expect.poll(() => serve.stderr().includes(CONNECTING), {timeout: 20_000}).toBe(true)
    const log = serve.stderr()
    const answered = position(log, ANSWERED)
    expect(position(log, ENGINE)).toBeGreaterThan(answered)
    expect(position(log, CONNECTING)).toBeGreaterThan(answered)
    // A tool call waits for the downstream code, then for the stuck server's first attempt.
    const listing = await serve.request('tools/call', {name: 'list_callable_tools', arguments: {}})
    expect(JSON.stringify(listing.result)).toContain('stuck')
  })
})

describe('serve flags', () => {
  it('plain flags are applied: --config=FILE and -c FILE, --log-level=info', async () => {
    const setup = prepareServe({servers: [{name: 'broken', command: ''}]})
    cleanups.push(() => setup.cleanup())
    for (const flags of [[`--config=${setup.configPath}`], ['-c', setup.configPath]]) {
      // stdin is closed: serve stops at once, exit 0.
      const {code, stdout, stderr} = await spawnCli(['serve', ...flags, '--log-level=info']).done
      expect(code).toBe(0)
      expect(stdout).toBe('')
      expect(stderr).toContain('[ptc-mcp] info: serving on stdio')
      expect(stderr).toContain('server broken is unavailable')
    }
  })

  it('help and bad flags are answered by oclif as for any command', async () => {
    const help = await spawnCli(['serve', '--help']).done
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('$ ptc-mcp serve [-c <value>] [--log-level error|warn|info|debug]')
    const unknown = await spawnCli(['serve', '--nope']).done
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Nonexistent flag: --nope')
    const level = await spawnCli(['serve', '--log-level', 'loud']).done
    expect(level.code).toBe(2)
    expect(level.stderr).toContain('Expected --log-level=loud to be one of: error, warn, info, debug')
  })
})
