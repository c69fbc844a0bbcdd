// @tier integration
// Ctrl-C in `run` names what it stopped waiting for: a server still connecting (not reported as
// failed), or a tool call still running.
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {commandLine, descendants} from '../helpers/processes.js'
import {runOnTerminal} from '../helpers/pty.js'
import {BIN, spawnCli} from '../helpers/serve.js'

const dir = mkdtempSync(join(tmpdir(), 'ptc-run-interrupt-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

function config(name: string, server: Record<string, unknown>): string {
  const path = join(dir, `${name}.yaml`)
  writeFileSync(path, stringify({servers: [server], execution: {sandbox: 'none', warm_pool: 0}}))
  return path
}

function program(name: string, code: string): string {
  const path = join(dir, name)
  writeFileSync(path, code)
  return path
}

describe('Ctrl-C in run names what was waited for', () => {
  it('a server still connecting: named with how long it was given, nothing ran', async () => {
    const path = config('slow', {name: 'slow', command: 'sleep', args: ['300'], connect_timeout_seconds: 90})
    const run = spawnCli(['run', '--config', path, program('slow.py', 'print(await mcp__slow__ping())\n')])
    await expect
      .poll(() => descendants(run.pid).some((pid) => commandLine(pid) === 'sleep 300'), {timeout: 30_000})
      .toBe(true)
    process.kill(run.pid, 'SIGINT')
    const result = await run.done
    expect(result.code).toBe(130)
    expect(result.stdout).toMatch(
      /^\[Script execution cancelled\]\nstopped while waiting for slow to connect \(\d+s, of up to 90s\): nothing ran\n$/,
    )
  })

  it('on a terminal, the progress view says the server was still connecting, not that it failed', async () => {
    const path = config('slow-tty', {
      name: 'slow',
      command: 'sleep',
      args: ['300'],
      connect_timeout_seconds: 90,
    })
    const run = runOnTerminal(
      [process.execPath, BIN, 'run', '--config', path, program('tty.py', 'print(await mcp__slow__ping())\n')],
      {
        interruptAfter: 'Connecting to slow',
        columns: 200,
      },
    )
    const result = await run.done
    expect(result.code, result.stdout).toBe(130)
    expect(result.stdout).toContain('slow: still connecting when Ctrl-C stopped the run')
    expect(result.stdout).not.toContain('slow: unavailable')
  }, 150_000)

  it('a tool call still running: named, with how long it ran', async () => {
    const path = config('hang', {name: 'fx', ...fixtureCommand()})
    const started = join(dir, 'started')
    const code = `open(${JSON.stringify(started)}, "w").close()\nprint("before")\nprint(await mcp__fx__hang())\n`
    // --yes: the fixture's tools are not read-only, and there is no terminal to ask on.
    const run = spawnCli(['run', '--yes', '--config', path, program('hang.py', code)])
    // The call goes out as soon as the file is there, ahead of the signal the poll then sends.
    await expect.poll(() => existsSync(started), {timeout: 30_000}).toBe(true)
    process.kill(run.pid, 'SIGINT')
    const result = await run.done
    expect(result.code).toBe(130)
    expect(result.stdout).toMatch(
      /^before\n\[Script execution cancelled\]\nstopped while waiting for mcp__fx__hang \([\d.]+s\)\n/,
    )
  })
})
