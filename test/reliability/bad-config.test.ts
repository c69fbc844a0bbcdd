// @tier integration
// A config or an environment that cannot work: one clear message each, from the real CLI, with the
// documented exit code (2: usage or config; the Python problems too, being the user's to fix).
import {chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {resultText, startRawServe, toolResult} from '../helpers/json-rpc.js'
import {type Finished} from '../helpers/processes.js'
import {execute} from '../helpers/serve-session.js'
import {BIN, prepareServe, spawnCli} from '../helpers/serve.js'

/** Root reads files whatever their mode: the unreadable-file case then runs as this user. */
const NOBODY = {uid: 65_534, gid: 65_534}
const isRoot = process.getuid?.() === 0

function cli(
  args: string[],
  options: {env?: Record<string, string>; asNobody?: boolean} = {},
): Promise<Finished> {
  return spawnCli(args, {env: options.env, timeoutMs: 30_000, ...(options.asNobody ? NOBODY : {})}).done
}

/** oclif wraps long messages at the terminal width and prefixes ` ›   `: undo both to match text. */
const flat = (stderr: string) =>
  stderr
    .split('\n')
    .map((line) => line.replace(/^ ›\s+/, ''))
    .join(' ')
    .replaceAll(/\s+/g, ' ')

describe('bad config and environment, through the CLI', () => {
  let dir: string
  let program: string

  beforeAll(() => {
    // Not under the test run's TMPDIR (mode 0700): `nobody` must be able to reach the files.
    dir = mkdtempSync(join(isRoot ? '/tmp' : tmpdir(), 'ptc-bad-config-'))
    chmodSync(dir, 0o755)
    program = join(dir, 'program.py')
    writeFileSync(program, 'print("ran")\n', {mode: 0o644})
  })

  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  const write = (name: string, text: string, mode = 0o644) => {
    const path = join(dir, name)
    writeFileSync(path, text, {mode})
    chmodSync(path, mode)
    return path
  }

  it('a directory, a dangling link, invalid YAML, an unreadable file: exit 2 and one message naming the problem', async () => {
    const directory = join(dir, 'config-dir')
    mkdirSync(directory)
    const dangling = join(dir, 'dangling.yaml')
    symlinkSync(join(dir, 'nowhere', 'config.yaml'), dangling)
    const invalid = write('invalid.yaml', 'servers: [\n  - name: a\n')
    const unreadable = write('unreadable.yaml', 'servers: []\n', 0o000)

    const cases: Array<{config: string; message: string | RegExp; asNobody?: boolean}> = [
      {config: directory, message: `Config path ${directory} is a directory, not a file`},
      {
        config: dangling,
        message: `Config file ${dangling} (from --config) is a symbolic link to ${join(dir, 'nowhere', 'config.yaml')}, which does not exist`,
      },
      {config: invalid, message: new RegExp(`Invalid YAML in ${invalid}: line 2, column 3: `)},
      {config: unreadable, message: `Cannot read config ${unreadable}: permission denied`, asNobody: isRoot},
    ]
    const runs = await Promise.all(
      cases.map(({config, asNobody}) =>
        cli(['run', '--config', config, program], {asNobody, env: asNobody ? {HOME: dir} : {}}),
      ),
    )
    for (const [index, run] of runs.entries()) {
      const {message} = cases[index]!
      expect(run.code, run.stderr).toBe(2)
      expect(run.stdout).toBe('')
      if (typeof message === 'string') expect(flat(run.stderr)).toContain(message)
      else expect(flat(run.stderr)).toMatch(message)
      // One error with one fix, not a stack.
      expect(run.stderr.match(/Error:/g)).toHaveLength(1)
      expect(run.stderr).toMatch(/Try this: /)
      expect(run.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it('serve does not die of it: it starts, and every tool call answers with the error and its fix', async () => {
    const setup = prepareServe({})
    setup.args = [BIN, 'serve', '--config', join(dir, 'config-dir')]
    const serve = await startRawServe(setup)
    try {
      // The instructions, shown from the first turn, say it before any call.
      const {instructions} = serve.initialized.result as {instructions?: string}
      expect(instructions).toContain('ptc-mcp cannot use its config file, so no tools are available: ')
      expect(instructions).toContain(`Config path ${join(dir, 'config-dir')} is a directory, not a file`)
      const answers = await Promise.all(
        ['list_callable_tools', 'inspect_tool', 'execute_program'].map((tool) =>
          serve.callTool(tool, tool === 'execute_program' ? {code: 'print(1)'} : {}),
        ),
      )
      for (const answer of answers) {
        const result = toolResult(answer)
        expect(result.isError).toBe(true)
        expect(resultText(answer)).toContain(
          `Config path ${join(dir, 'config-dir')} is a directory, not a file`,
        )
        expect(resultText(answer)).toContain('Fix: Point --config or PTC_MCP_CONFIG at the YAML file itself')
      }
      expect(serve.stderr()).toContain('is a directory, not a file')
    } finally {
      serve.child.stdin.end()
      expect(await serve.exited).toBe(0)
      setup.cleanup()
    }
  })

  it('a missing Python and a Python too old: exit 2 and the reason, with the fix', async () => {
    // Python 2 rejects -I and tells its version only to --version, on stderr.
    const python2 = write(
      'python2',
      '#!/bin/sh\ncase "$1" in\n  --version|-V) echo "Python 2.7.18" >&2 ;;\n  *) echo "Unknown option: $1" >&2; exit 2 ;;\nesac\n',
      0o755,
    )
    // Something that answers every question with its version.
    const python38 = write('python38', '#!/bin/sh\necho "Python 3.8.10"\n', 0o755)
    const cases = [
      {
        python: join(dir, 'no-such-python3'),
        message: `Python interpreter "${join(dir, 'no-such-python3')}" was not found`,
      },
      {python: python2, message: `Python 2.7.18 at "${python2}" is too old: programs need Python >= 3.10`},
      {python: python38, message: `Python 3.8.10 at "${python38}" is too old: programs need Python >= 3.10`},
    ]
    const runs = await Promise.all(
      cases.map(({python}, index) =>
        cli(['run', '--config', write(`python-${index}.yaml`, `execution:\n  python: ${python}\n`), program]),
      ),
    )
    for (const [index, run] of runs.entries()) {
      expect(run.code, run.stderr).toBe(2)
      expect(flat(run.stderr)).toContain(cases[index]!.message)
      expect(flat(run.stderr)).toContain(
        'install Python 3.10 or newer, or set execution.python in config.yaml',
      )
      expect(run.stderr.match(/Error:/g)).toHaveLength(1)
    }
  })

  it('through serve, a Python too old fails each program with the reason and the fix; the server goes on', async () => {
    const python = write('python38-serve', '#!/bin/sh\necho "Python 3.8.10"\n', 0o755)
    const setup = prepareServe({execution: {python}})
    const serve = await startRawServe(setup)
    try {
      const run = await execute(serve, 'print(1)')
      expect(run.isError).toBe(true)
      expect(run.text).toBe(
        `[Script execution failed]\nPythonNotFoundError: Python 3.8.10 at "${python}" is too old: programs need Python >= 3.10 ` +
          '(install Python 3.10 or newer, or set execution.python in config.yaml to its full path)',
      )
      expect(run.structured).toEqual({ok: false, error: expect.stringMatching(/^PythonNotFoundError: /)})
      expect((await serve.request('ping')).result).toEqual({})
    } finally {
      serve.child.stdin.end()
      await serve.exited
      setup.cleanup()
    }
  })
})
