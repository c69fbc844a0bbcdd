// `ptc-mcp auth` errors, from the built CLI: the config's secrets never reach them (SPEC §15).
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {spawnCollect} from '../helpers/processes.js'
import {BIN} from '../helpers/serve.js'

const SECRET = 'review-url-secret-4711'

describe('auth errors', () => {
  let dir: string
  let config: string

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-auth-errors-'))
    config = join(dir, 'config.yaml')
    // Port 9 (discard) is refused here: the sign-in cannot reach the server.
    writeFileSync(
      config,
      'servers:\n  - name: remote\n    transport: http\n    url: "http://127.0.0.1:9/mcp?key=${URL_KEY}"\n    oauth: {}\n',
    )
  })

  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('a server that cannot be reached is named, with its URL redacted', async () => {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      URL_KEY: SECRET,
      XDG_STATE_HOME: join(dir, 'state'),
    }
    delete env.PTC_MCP_CONFIG
    for (const json of [false, true]) {
      const args = [BIN, 'auth', 'remote', '--no-browser', '--config', config, ...(json ? ['--json'] : [])]
      const run = await spawnCollect(process.execPath, args, {env}).done
      expect(run.code, run.stderr).toBe(1)
      const shown = `${run.stdout}${run.stderr}`
      expect(shown).toContain('Cannot reach')
      expect(shown).toContain('http://127.0.0.1:9/mcp?key=[redacted]')
      expect(shown).not.toContain(SECRET)
    }
  })
})
