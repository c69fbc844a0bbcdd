import {runCommand} from '@oclif/test'
// `ptc-mcp doctor` in-process: the real checks (Node, Python, a live sandbox probe, the config, each
// server) against the bundled example server and against servers that cannot be reached.
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {type AddressInfo, createServer as createTcpServer} from 'node:net'
import {tmpdir} from 'node:os'
import {isAbsolute, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import type {DoctorResult} from '../../src/commands/doctor.js'

import {runCheck} from '../../src/doctor/check.js'
import {doctorChecks} from '../../src/doctor/checks.js'
import {silentLogger} from '../../src/shared/log.js'
import {ROOT, withExitCode} from '../helpers/command-exit.js'
import {withNoConfig} from '../helpers/serve.js'

const runDoctor = async (argv: string[]) =>
  withExitCode(await runCommand<DoctorResult>(['doctor', ...argv], {root: ROOT}))

let dir: string
let unauthorized: Server
let notFound: Server

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-doctor-test-'))
  unauthorized = createServer((_req, res) =>
    res.writeHead(401, {'content-type': 'text/plain'}).end('no token'),
  )
  notFound = createServer((req, res) =>
    res.writeHead(404, {'content-type': 'text/plain'}).end(`Cannot ${req.method} ${req.url}`),
  )
  await Promise.all(
    [unauthorized, notFound].map(
      (server) =>
        new Promise<void>((resolve) => {
          server.listen(0, '127.0.0.1', resolve)
        }),
    ),
  )
})

afterAll(() => {
  unauthorized.close()
  notFound.close()
  rmSync(dir, {force: true, recursive: true})
})

/** A port nothing listens on: bound, read, closed. */
async function refusedPort(): Promise<number> {
  const server = createTcpServer()
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  const {port} = server.address() as AddressInfo
  await new Promise((resolve) => {
    server.close(resolve)
  })
  return port
}

describe('ptc-mcp doctor', () => {
  it('passes with the example config: Node, Python, the sandbox probe, the config and the server', async () => {
    const run = await runDoctor(['--config', 'examples/config.yaml'])
    expect(run.error).toBeUndefined()
    const byId = Object.fromEntries(run.result!.checks.map((c) => [c.id, c]))
    expect(Object.keys(byId)).toEqual([
      'node',
      'python',
      'sandbox',
      'config',
      'server:finance',
      'programs',
      'permissions',
    ])
    for (const check of run.result!.checks) expect(check.status, `${check.id}: ${check.detail}`).toBe('pass')
    expect(run.exitCode).toBeUndefined()
    expect(byId.sandbox?.detail).toMatch(/^linux:.*refused read outside, write outside, socket, fork/)
    expect(byId['server:finance']?.detail).toMatch(/^stdio, 3 tools, connected in \d+ ms$/)
    expect(byId.config?.detail).toMatch(/examples\/config\.yaml \(1 server\)$/)
    expect(run.stdout).toContain('✔ pass  Server finance')
  })

  it('fails with the reason and a fix for a missing command, a refused URL and a 401, exit 1; --json is the same data', async () => {
    const configPath = join(dir, 'broken.yaml')
    const {port} = unauthorized.address() as AddressInfo
    writeFileSync(
      configPath,
      stringify({
        servers: [
          {name: 'missing', command: '/nonexistent/mcp-server'},
          {name: 'refused', transport: 'http', url: `http://127.0.0.1:${await refusedPort()}/mcp`},
          {name: 'locked', transport: 'http', url: `http://127.0.0.1:${port}/mcp`},
        ],
        execution: {sandbox: 'none'},
      }),
    )
    const text = await runDoctor(['--config', configPath])
    expect(text.exitCode).toBe(1)
    const json = await runDoctor(['--config', configPath, '--json'])
    expect(json.exitCode).toBe(1)
    // What --json prints is the returned object as JSON (not a deep copy: a JSON round trip).
    // eslint-disable-next-line unicorn/prefer-structured-clone
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(json.result)))

    for (const run of [text, json]) {
      const byId = Object.fromEntries(run.result!.checks.map((c) => [c.id, c]))
      expect(run.result!.ok).toBe(false)
      expect(byId['server:missing']).toMatchObject({
        status: 'fail',
        fix: '"/nonexistent/mcp-server" was not found: use an absolute path, or install it and check PATH',
      })
      expect(byId['server:missing']?.detail).toContain('/nonexistent/mcp-server')
      expect(byId['server:refused']).toMatchObject({
        status: 'fail',
        fix: expect.stringMatching(/nothing is listening/),
      })
      expect(byId['server:locked']).toMatchObject({
        status: 'fail',
        detail:
          'http HTTP 401 Unauthorized (check the headers, such as Authorization, in the config): no token',
        fix: 'the server wants credentials: set headers (e.g. Authorization: "Bearer ${TOKEN}"), or add oauth: {} and run `ptc-mcp auth locked`',
      })
      expect(byId.sandbox).toMatchObject({status: 'warn', fix: expect.stringMatching(/sandbox: auto/)})
    }
    expect(text.stdout).toMatch(/✖ fail {2}Server refused: .*ECONNREFUSED.* — fix: nothing is listening/)
  })

  it('matches the advice to the failure: an HTTP 404, a command that does not speak MCP, a crash at start', async () => {
    const configPath = join(dir, 'mismatched.yaml')
    const {port} = notFound.address() as AddressInfo
    writeFileSync(
      configPath,
      stringify({
        servers: [
          {name: 'wrong-path', transport: 'http', url: `http://127.0.0.1:${port}/api`},
          {name: 'cat', command: '/bin/cat'},
          {name: 'crash', command: process.execPath, args: ['-e', "require('no-such-module-for-doctor')"]},
        ],
        execution: {sandbox: 'none'},
      }),
    )
    const run = await runDoctor(['--config', configPath])
    expect(run.exitCode).toBe(1)
    const byId = Object.fromEntries(run.result!.checks.map((c) => [c.id, c]))
    expect(byId['server:wrong-path']).toMatchObject({
      status: 'fail',
      detail: 'http not an MCP endpoint: POST got HTTP 404 Not Found',
      fix: 'no MCP endpoint at /api: check the url (the MCP path is often /mcp for http, /sse for sse)',
    })
    expect(byId['server:cat']).toMatchObject({
      status: 'fail',
      detail: 'stdio not an MCP server: it sent the initialize request back instead of answering it',
      fix: '"/bin/cat" does not speak MCP: the command must start an MCP server on stdin/stdout',
    })
    const crashLine = "Error: Cannot find module 'no-such-module-for-doctor'"
    expect(byId['server:crash']).toMatchObject({
      status: 'fail',
      detail: `stdio server process exited during startup; stderr: ${crashLine}`,
      fix: `the server crashed at start (${crashLine}): fix that, then check by running its command by hand`,
    })
    expect(JSON.stringify(byId['server:crash'])).not.toContain('Node.js v')
  })

  it('reports every config error and exits 2, like the other commands', async () => {
    const configPath = join(dir, 'invalid.yaml')
    writeFileSync(
      configPath,
      stringify({
        servers: [
          {name: 'a', command: 'x', env: {K: '${PTC_DOCTOR_TEST_UNSET}'}},
          {name: 'b', transport: 'http', url: 'not a url'},
        ],
      }),
    )
    const run = await runDoctor(['--config', configPath])
    expect(run.exitCode).toBe(2)
    const config = run.result!.checks.find((c) => c.id === 'config')
    expect(config?.status).toBe('fail')
    expect(config?.detail).toContain(
      'servers[0].env.K: environment variable PTC_DOCTOR_TEST_UNSET is not set',
    )
    expect(config?.detail).toContain('servers[1].url: expected a URL')
  })

  it('lists every Claude Code settings file in force, managed first, and the rules Claude Code skips', async () => {
    const home = join(dir, 'claude-home')
    const project = join(dir, 'claude-project')
    const managed = join(dir, 'claude-managed')
    for (const sub of [join(home, '.claude'), join(project, '.claude'), join(managed, 'managed-settings.d')])
      mkdirSync(sub, {recursive: true})
    const user = join(home, '.claude', 'settings.json')
    writeFileSync(
      user,
      JSON.stringify({permissions: {deny: ['mcp__fx__env'], allow: ['mcp__*', 'Bash(ls)']}}),
    )
    writeFileSync(
      join(managed, 'managed-settings.json'),
      JSON.stringify({permissions: {deny: ['mcp__fx__delete_*']}}),
    )
    const dropIn = join(managed, 'managed-settings.d', '10-ask.json')
    writeFileSync(dropIn, JSON.stringify({permissions: {ask: ['mcp__fx', 'mcp__fx__add(x)']}}))
    const configPath = join(dir, 'no-servers.yaml')
    writeFileSync(configPath, stringify({servers: []}))
    const {checks, close} = await doctorChecks({
      configFlag: configPath,
      logger: silentLogger,
      home,
      projectDir: project,
      managedDir: managed,
    })
    const check = await runCheck(checks.find((c) => c.id === 'permissions')!).finally(close)
    expect(check.status).toBe('warn')
    expect(check.detail).toContain(
      `settings in force: managed ${join(managed, 'managed-settings.json')} (1 MCP rule); managed ${dropIn} (1 MCP rule); user ${user} (1 MCP rule);`,
    )
    expect(check.detail).not.toContain('settings.local.json')
    expect(check.detail).toContain(`Claude Code skips the rule "mcp__*" (permissions.allow in ${user})`)
    expect(check.detail).toContain(
      `Claude Code skips the rule "mcp__fx__add(x)" (permissions.ask in ${dropIn})`,
    )
    expect(check.fix).toMatch(/^fix or remove each rule named/)

    writeFileSync(user, JSON.stringify({permissions: {deny: ['mcp__fx__env']}}))
    writeFileSync(dropIn, '{}')
    const again = await doctorChecks({
      configFlag: configPath,
      logger: silentLogger,
      home,
      projectDir: project,
      managedDir: managed,
    })
    const clean = await runCheck(again.checks.find((c) => c.id === 'permissions')!).finally(again.close)
    expect(clean.status).toBe('pass')
    expect(clean.detail).toMatch(/; calls no rule covers ask \(ask_unlisted: true\)$/)
  })

  it('without a config warns, and says where the config.example.yaml to copy is and where to', async () => {
    await withNoConfig(dir, async (empty) => {
      const {checks, close} = await doctorChecks({logger: silentLogger})
      const config = await runCheck(checks.find((c) => c.id === 'config')!).finally(close)
      expect(config.status).toBe('warn')
      const [, example, target] = /copy (\S+) to (\S+)$/.exec(config.fix ?? '') ?? []
      expect(target).toBe(join(empty, 'xdg', 'ptc-mcp', 'config.yaml'))
      expect(example, config.fix).toBeDefined()
      expect(isAbsolute(example!)).toBe(true)
      expect(existsSync(example!)).toBe(true)
    })
  })

  it('reports a Python too old once, in the Python check; the sandbox check only says it was not probed', async () => {
    const oldPython = join(dir, 'python3.8')
    writeFileSync(oldPython, '#!/bin/sh\n[ "$1" = --version ] && echo "Python 3.8.10" && exit 0\nexit 1\n', {
      mode: 0o755,
    })
    const configPath = join(dir, 'old-python.yaml')
    writeFileSync(configPath, stringify({execution: {python: oldPython, sandbox: 'none'}}))
    const run = await runDoctor(['--config', configPath])
    const byId = Object.fromEntries(run.result!.checks.map((c) => [c.id, c]))
    expect(byId.python).toMatchObject({
      status: 'fail',
      detail: `Python 3.8.10 at "${oldPython}" is too old: programs need Python >= 3.10`,
      fix: 'install Python 3.10 or newer, or set execution.python in config.yaml to its full path',
    })
    expect(byId.sandbox).toEqual({
      id: 'sandbox',
      title: 'Sandbox',
      status: 'fail',
      detail: 'not probed: the probe runs a Python program (see the Python check)',
      ms: expect.any(Number),
    })
    expect(run.stdout.split('too old')).toHaveLength(2)
  })
})
