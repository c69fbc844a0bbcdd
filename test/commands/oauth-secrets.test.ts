// @tier integration
// An OAuth server's URL carrying a ${VAR} value, from the built CLI: `auth` and `list` never show the
// value, in errors or in --json (SPEC §15).
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {spawnCli} from '../helpers/serve.js'

const SECRET = 'review-url-secret-4711'

describe('an OAuth server whose URL carries a secret', () => {
  let dir: string
  let config: string

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-auth-errors-'))
    config = join(dir, 'config.yaml')
    // Nothing listens on port 2 here (and fetch may connect to it, unlike port 9): the sign-in cannot reach the server.
    writeFileSync(
      config,
      'servers:\n  - name: remote\n    transport: http\n    url: "http://127.0.0.1:2/mcp?key=${URL_KEY}"\n    oauth: {}\n',
    )
  })

  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  const cli = (args: string[]) =>
    spawnCli([...args, '--config', config], {env: {URL_KEY: SECRET, XDG_STATE_HOME: join(dir, 'state')}}).done

  it('auth: a server that cannot be reached is named, with its URL redacted', async () => {
    for (const json of [false, true]) {
      const run = await cli(['auth', 'remote', '--no-browser', ...(json ? ['--json'] : [])])
      expect(run.code, run.stderr).toBe(1)
      const shown = `${run.stdout}${run.stderr}`
      expect(shown).toContain('Cannot reach')
      // Not the user's mistake in typing the command: a server that is down (exit 1, not 2).
      expect(shown).toContain(json ? '"code": "SERVER_UNREACHABLE"' : 'Code: SERVER_UNREACHABLE')
      expect(shown).not.toContain('USAGE')
      expect(shown.replaceAll(/\s*›\s*/g, ' ')).toContain(
        'Nothing is listening at that URL: start the server, or fix the url in the config.',
      )
      expect(shown).toContain('http://127.0.0.1:2/mcp?key=[redacted]')
      expect(shown).not.toContain(SECRET)
    }
  })

  it('auth --list --json and list --json give its state with the URL redacted', async () => {
    for (const args of [
      ['auth', '--list', '--json'],
      ['list', '--json'],
    ]) {
      const run = await cli(args)
      expect(run.code, run.stderr).toBe(0)
      const {oauth, servers} = JSON.parse(run.stdout) as {oauth?: unknown; servers: unknown}
      expect(args[0] === 'auth' ? servers : oauth).toMatchObject([
        {server: 'remote', url: 'http://127.0.0.1:2/mcp?key=[redacted]', state: 'needs-sign-in'},
      ])
      expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET)
    }
  })
})
