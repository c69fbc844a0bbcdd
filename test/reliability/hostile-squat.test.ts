// @tier sandbox
/**
 * A predictable path someone else created first (SPEC §15): another local user makes
 * `<tmp>/ptc-mcp-<uid>` before root's first program (in /tmp anyone can). Before, every program of
 * root then failed (the owner check refused the root, and nothing else was tried); now a fresh
 * private root is used beside it, programs run, and the other user's directory is left as it is.
 * The real binary, in each tier this machine has. As root only (the other user is a uid of its own).
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {scratchRoot} from '../../src/sandbox/scratch.js'
import {spawnCli} from '../helpers/serve.js'

const isRoot = process.geteuid?.() === 0
const OTHER = 54_326

const TIERS = [
  {name: 'bwrap', bwrap: '1'},
  {name: 'landlock+seccomp', bwrap: '0'},
].filter((tier) => tier.bwrap === '0' || findBwrap() !== undefined)

describe.runIf(process.platform === 'linux' && isRoot).each(TIERS)(
  'a scratch root squatted by another user, tier $name (SPEC §15)',
  ({bwrap}) => {
    let base: string

    beforeAll(() => {
      // Like /tmp: anyone may create entries, the sticky bit keeps them apart.
      base = mkdtempSync('/tmp/ptc-squat-')
      chmodSync(base, 0o1777)
      execFileSync('setpriv', [
        '--reuid',
        String(OTHER),
        '--regid',
        String(OTHER),
        '--clear-groups',

        '/bin/sh',
        '-c',
        `mkdir -m 700 "${scratchRoot(base)}" && echo theirs > "${scratchRoot(base)}/theirs"`,
      ])
      writeFileSync(join(base, 'p.py'), 'import os\nprint(1, len(os.listdir(".")))\n')
      writeFileSync(join(base, 'config.yaml'), 'servers: []\n')
    })
    afterAll(() => {
      if (base) rmSync(base, {recursive: true, force: true})
    })

    it('does not stop programs: a fresh private root is used, and theirs is untouched', async () => {
      const env = {...(process.env as Record<string, string>), TMPDIR: base, PTC_MCP_BWRAP: bwrap}
      const finished = await spawnCli(['run', '--config', join(base, 'config.yaml'), join(base, 'p.py')], {
        env,
      }).done
      expect(finished.code, finished.stderr).toBe(0)
      expect(finished.stdout).toContain('1 ')
      expect(statSync(scratchRoot(base)).uid).toBe(OTHER)
      expect(readdirSync(scratchRoot(base))).toEqual(['theirs'])
    })
  },
)
