// @tier integration
// `run` on a terminal shows the program's output as it comes, then the outcome without repeating it.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'

import {runOnTerminal} from '../helpers/pty.js'
import {BIN} from '../helpers/serve.js'

const dir = mkdtempSync(join(tmpdir(), 'ptc-run-live-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const config = join(dir, 'config.yaml')
writeFileSync(config, 'servers: []\nexecution:\n  timeout_seconds: 20\n  sandbox: none\n  warm_pool: 0\n')

it('a line printed before a long wait is on the terminal while the program still runs', async () => {
  // The terminal answers "tick-1" with Ctrl-C: that works only if tick-1 is shown before the program
  // ends (else the program runs into its 20 s timeout and fails, exit 1).
  const program = join(dir, 'slow.py')
  writeFileSync(program, 'import time\nprint("tick-1")\ntime.sleep(60)\nprint("tick-2")\n')
  const result = await runOnTerminal([process.execPath, BIN, 'run', '--config', config, program], {
    interruptAfter: 'tick-1',
  }).done
  const shown = result.stdout.replaceAll('\r', '')
  expect(result.code, shown).toBe(130)
  expect(shown).toMatch(/^tick-1\n(\^C)?\[Script execution cancelled\]\n$/)
}, 60_000)

it('the outcome follows the output once, and control characters are shown, not obeyed', async () => {
  const program = join(dir, 'quick.py')
  writeFileSync(program, 'print("one")\nprint("two\\x1b[2J", end="")\nemit({"n": 2})\n')
  const result = await runOnTerminal([process.execPath, BIN, 'run', '--config', config, program]).done
  const shown = result.stdout.replaceAll('\r', '')
  expect(result.code, shown).toBe(0)
  expect(shown).toBe('one\ntwo␛[2J\n[Script executed successfully]\n--- result ---\n{\n  "n": 2\n}\n')
}, 60_000)
