// @tier integration
// The built CLI as a new user meets it: help, version, a bad log level, Ctrl-C during `run` and `doctor`.
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {commandLine, descendants, isAlive} from '../helpers/processes.js'
import {runOnTerminal} from '../helpers/pty.js'
import {BIN, spawnCli} from '../helpers/serve.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

const cli = (args: string[], options?: {env?: Record<string, string>; cwd?: string}) =>
  spawnCli(args, options).done

describe('the CLI around the commands', () => {
  let dir: string
  let emptyConfig: string

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-cli-basics-'))
    emptyConfig = join(dir, 'empty.yaml')
    writeFileSync(emptyConfig, 'servers: []\n')
  })

  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('`help` lists every command and `-v` / `--version` print the version', async () => {
    const [help, short, long] = await Promise.all([cli(['help']), cli(['-v']), cli(['--version'])])
    expect(help.code).toBe(0)
    for (const command of ['serve', 'list', 'inspect', 'run', 'doctor', 'init']) {
      expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\s`, 'm'))
    }
    for (const run of [short, long]) {
      expect(run.code).toBe(0)
      expect(run.stdout).toContain(`ptc-mcp/${pkg.version}`)
    }
  })

  it('`version` prints what --version prints; a misspelt command gets the closest one, exit 2', async () => {
    const [version, json, typo, unknown] = await Promise.all([
      cli(['version']),
      cli(['version', '--json']),
      cli(['lsit']),
      cli(['frobnicate']),
    ])
    expect(version.code).toBe(0)
    expect(version.stdout).toMatch(new RegExp(`^ptc-mcp/${pkg.version} \\S+ node-v\\d+`))
    expect(JSON.parse(json.stdout)).toEqual({
      version: pkg.version,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    })
    const flat = (text: string) => text.replaceAll(/\s*›\s*/g, ' ').trim()
    expect(typo.code).toBe(2)
    expect(flat(typo.stderr)).toBe(
      'Error: "lsit" is not a ptc-mcp command. Did you mean "list"? Run `ptc-mcp help` for the list of commands.',
    )
    expect(unknown.code).toBe(2)
    expect(flat(unknown.stderr)).toBe(
      'Error: "frobnicate" is not a ptc-mcp command. Run `ptc-mcp help` for the list of commands.',
    )
  })

  it('a terminal that reports 0 columns gets the progress on whole lines, as if 80 wide', async () => {
    const program = join(dir, 'narrow.py')
    // Naming the server makes run connect it, with the progress view.
    writeFileSync(program, '# uses mcp__finance__\nprint(1)\n')
    const run = runOnTerminal([process.execPath, BIN, 'run', '--config', 'examples/config.yaml', program], {
      columns: 0,
    })
    const result = await run.done
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout).toMatch(/finance: \d+ tools/)
    // As the terminal shows it: the output on a line of its own (control sequences are invisible).
    expect(stripVTControlCharacters(result.stdout)).toMatch(/^1\r?$/m)
  }, 60_000)

  it('help examples name the bundled example (finance server, examples/config.yaml)', async () => {
    const runs = await Promise.all(['list', 'inspect', 'run'].map((command) => cli(['help', command])))
    for (const run of runs) {
      expect(run.code).toBe(0)
      expect(run.stdout).toContain('examples/config.yaml')
      expect(run.stdout).not.toMatch(/financial|npx/)
    }
    expect(runs[1]?.stdout).toContain('mcp__finance__get_income_statements')
  })

  it("list in a project whose config.yaml is another application's says it was passed over", async () => {
    const project = join(dir, 'project')
    const home = join(dir, 'empty-home')
    mkdirSync(project)
    mkdirSync(home)
    writeFileSync(join(project, 'config.yaml'), 'database:\n  host: localhost\n')
    const run = await cli(['list'], {cwd: project, env: {HOME: home, XDG_CONFIG_HOME: ''}})
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`${join(project, 'config.yaml')} is not a ptc-mcp config`)
  })

  it('an invalid PTC_MCP_LOG_LEVEL is warned about on stderr, and the command still works', async () => {
    const run = await cli(['list', '--config', emptyConfig], {env: {PTC_MCP_LOG_LEVEL: 'loud'}})
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('PTC_MCP_LOG_LEVEL="loud" is not a log level (error, warn, info, debug)')
    const fine = await cli(['list', '--config', emptyConfig], {env: {PTC_MCP_LOG_LEVEL: 'debug'}})
    expect(fine.stderr).not.toContain('is not a log level')
  })

  it('Ctrl-C in `run` prints what the program had printed, [Script execution cancelled], cleans up, exits 130', async () => {
    // Without OS isolation the program can tell the test where it is (marker outside scratch).
    const config = join(dir, 'none.yaml')
    writeFileSync(config, 'execution:\n  sandbox: none\n  warm_pool: 0\n')
    const marker = join(dir, 'marker.json')
    const program = join(dir, 'sleeps.py')
    writeFileSync(
      program,
      [
        'import json, os, time',
        'print("first line", flush=True)',
        `with open(${JSON.stringify(marker)}, "w") as f:`,
        '    json.dump({"pid": os.getpid(), "cwd": os.getcwd()}, f)',
        'time.sleep(60)',
        'print("never")',
        '',
      ].join('\n'),
    )
    const run = spawnCli(['run', '--config', config, program])
    await expect
      .poll(() => existsSync(marker) && readFileSync(marker, 'utf8').endsWith('}'), {timeout: 30_000})
      .toBe(true)
    const {pid, cwd} = JSON.parse(readFileSync(marker, 'utf8')) as {pid: number; cwd: string}
    process.kill(run.pid, 'SIGINT')
    const result = await run.done
    expect(result.code).toBe(130)
    expect(result.stdout).toBe('first line\n[Script execution cancelled]\n')
    expect(isAlive(pid)).toBe(false)
    expect(existsSync(cwd)).toBe(false)
  })

  it('Ctrl-C while servers are still connecting stops at once: [Script execution cancelled], exit 130, no server left', async () => {
    // A "server" that never answers keeps the first connection attempt open.
    const config = join(dir, 'hanging.yaml')
    writeFileSync(
      config,
      `servers:\n  - name: silent\n    command: sleep\n    args: ["300"]\nexecution:\n  sandbox: none\n  warm_pool: 0\n`,
    )
    const program = join(dir, 'quick.py')
    // run connects only the servers a program names: this one names the silent server.
    writeFileSync(program, 'print("ran")\nprint(await mcp__silent__ping())\n')
    const run = spawnCli(['run', '--config', config, program])
    let server: number | undefined
    await expect
      .poll(
        () => {
          server = descendants(run.pid).find((pid) => commandLine(pid) === 'sleep 300')
          return server !== undefined
        },
        {timeout: 30_000},
      )
      .toBe(true)
    process.kill(run.pid, 'SIGINT')
    const result = await run.done
    expect(result.code).toBe(130)
    expect(result.stdout).toMatch(
      /^\[Script execution cancelled\]\nstopped while waiting for silent to connect \(\d+s, of up to 30s\): nothing ran\n$/,
    )
    expect(isAlive(server!)).toBe(false)
  })

  it('Ctrl-C on a terminal while the progress view shows servers connecting: cancelled, exit 130, no server left', async () => {
    // On a terminal, listr2 draws the progress; its own Ctrl-C handler had exited 127 at once.
    const pidFile = join(dir, 'silent.pid')
    const config = join(dir, 'hanging-tty.yaml')
    writeFileSync(
      config,
      `servers:\n  - name: silent\n    command: sh\n    args: ["-c", "echo $$ > ${pidFile}; exec sleep 300"]\nexecution:\n  sandbox: none\n  warm_pool: 0\n`,
    )
    const program = join(dir, 'quick-tty.py')
    writeFileSync(program, 'print("ran")\nprint(await mcp__silent__ping())\n')
    const run = runOnTerminal([process.execPath, BIN, 'run', '--config', config, program], {
      interruptAfter: 'Connecting to silent',
      interruptWhenExists: pidFile,
    })
    const result = await run.done
    expect(result.code, result.stdout).toBe(130)
    expect(result.stdout).toContain('[Script execution cancelled]')
    expect(result.stdout).not.toMatch(/^ran\r?$/m)
    const server = Number(readFileSync(pidFile, 'utf8'))
    await expect.poll(() => !isAlive(server), {timeout: 10_000}).toBe(true)
  }, 150_000)

  it('serve typed on a terminal says what it waits for (on stderr), and Ctrl-C stops it with exit 0', async () => {
    const hint = 'ptc-mcp serve waits for an MCP client on stdin/stdout'
    const run = runOnTerminal([process.execPath, BIN, 'serve', '--config', emptyConfig], {
      interruptAfter: 'use `ptc-mcp run FILE`. Ctrl-C stops it.',
    })
    const result = await run.done
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout).toContain(hint)
    // Started by a client (stdin not a terminal), it says nothing.
    const piped = await cli(['serve', '--config', emptyConfig])
    expect(piped.code).toBe(0)
    expect(piped.stderr).not.toContain(hint)
    expect(piped.stdout).toBe('')
  }, 150_000)

  it('Ctrl-C on a terminal during doctor: the checks stop, exit 130, no server, probe or scratch left', async () => {
    const pidFile = join(dir, 'silent-doctor.pid')
    const tmp = mkdtempSync(join(dir, 'tmp-'))
    const config = join(dir, 'hanging-doctor.yaml')
    writeFileSync(
      config,
      `servers:\n  - name: silent\n    command: sh\n    args: ["-c", "echo $$ > ${pidFile}; exec sleep 300"]\n`,
    )
    const run = runOnTerminal([process.execPath, BIN, 'doctor', '--config', config], {
      interruptAfter: 'Server silent',
      interruptWhenExists: pidFile,
      env: {TMPDIR: tmp},
    })
    const result = await run.done
    expect(result.code, result.stdout).toBe(130)
    expect(result.stdout).toContain('Stopped by Ctrl-C: the checks did not finish.')
    const server = Number(readFileSync(pidFile, 'utf8'))
    await expect.poll(() => !isAlive(server), {timeout: 10_000}).toBe(true)
    // The sandbox probe's directories and the programs' scratch are gone with it.
    const left = readdirSync(tmp).flatMap((name) =>
      name.startsWith('ptc-mcp-') && !name.startsWith('ptc-mcp-probe-') && !name.startsWith('ptc-mcp-fork-')
        ? readdirSync(join(tmp, name)).map((entry) => `${name}/${entry}`)
        : [name],
    )
    expect(left).toEqual([])
  }, 150_000)
})
