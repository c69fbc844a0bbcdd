// @tier sandbox
// A checkout (or an unpacked package) under /tmp, readable by everyone: the bwrap tier binds its
// runtime files read-only on top of the private /tmp, and as root the child hands /tmp to the uid it
// drops to. That hand-over must stop at the binds (it once failed on them with EROFS).
import {chmodSync, cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {spawnCollect} from '../helpers/processes.js'

const ROOT = resolve(import.meta.dirname, '../..')

describe.runIf(process.platform === 'linux')('a checkout under /tmp', () => {
  let dir: string

  beforeAll(() => {
    dir = mkdtempSync('/tmp/ptc-checkout-')
    chmodSync(dir, 0o755)
    for (const part of ['bin', 'dist', 'package.json', 'oclif.manifest.json'])
      cpSync(join(ROOT, part), join(dir, part), {recursive: true})
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
    writeFileSync(join(dir, 'config.yaml'), 'servers: []\n')
    writeFileSync(
      join(dir, 'program.py'),
      'import os\nopen("made.txt", "w").write("x")\nprint(sorted(os.listdir(".")))\n',
    )
  })

  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it.each([
    ['bwrap', '1'],
    ['Landlock alone', '0'],
  ])(
    'runs programs in the %s tier',
    async (_tier, bwrap) => {
      const env = {...(process.env as Record<string, string>), PTC_MCP_BWRAP: bwrap}
      const run = await spawnCollect(
        process.execPath,
        [join(dir, 'bin', 'run.js'), 'run', join(dir, 'program.py'), '--config', join(dir, 'config.yaml')],
        {cwd: dir, env, timeoutMs: 60_000},
      ).done
      expect(run.stderr + run.stdout).toContain("['made.txt', 'session']")
      expect(run.code).toBe(0)
    },
    90_000,
  )
})
