// @tier integration
// `run` on a terminal names each server it connects and how long it gives it; a server that does
// not answer in that time is named with its timeout and the fix (a first start may need longer).
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {runOnTerminal} from '../helpers/pty.js'
import {BIN} from '../helpers/serve.js'

const dir = mkdtempSync(join(tmpdir(), 'ptc-run-connect-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

it("run's connect progress names the server and its timeout, and after a timeout the fix", async () => {
  const config = join(dir, 'config.yaml')
  writeFileSync(
    config,
    stringify({
      servers: [{name: 'slow', ...fixtureCommand(['--delay-start-ms', '20000']), connect_timeout_seconds: 1}],
    }),
  )
  const program = join(dir, 'program.py')
  writeFileSync(program, '# uses mcp__slow__\nprint(1)\n')
  const {stdout: shown} = await runOnTerminal([process.execPath, BIN, 'run', '--config', config, program], {
    columns: 400,
  }).done
  const flat = shown.replaceAll('\r', '')
  expect(flat).toContain('Connecting to slow (stdio, up to 1s)')
  expect(flat).toContain(
    'slow: unavailable (no answer within 1s (connect timeout)): the server did not answer in time',
  )
  expect(flat).toContain('raise connect_timeout_seconds')
}, 60_000)
