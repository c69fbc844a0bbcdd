// `ptc-mcp doctor`'s data-flow check (SPEC §12.1), in-process, against the vault and web fixture
// servers: the sources and sinks in force, and the warnings for what no rule covers.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {runCheck} from '../../src/doctor/check.js'
import {doctorChecks} from '../../src/doctor/checks.js'
import {silentLogger} from '../../src/shared/log.js'
import {flowServerCommand} from '../fixtures/flow-servers.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-doctor-flows-'))
})

afterAll(() => {
  rmSync(dir, {recursive: true, force: true})
})

async function flowsCheck(flows?: Record<string, unknown>) {
  const configPath = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(
    configPath,
    stringify({
      servers: [
        {name: 'vault', ...flowServerCommand('vault')},
        {name: 'web', ...flowServerCommand('web', join(dir, 'web.log'))},
      ],
      permissions: {claude_code: false},
      ...(flows && {flows}),
    }),
  )
  const {checks, close} = await doctorChecks({configFlag: configPath, logger: silentLogger})
  const check = checks.find((c) => c.id === 'flows')
  try {
    return check && (await runCheck(check))
  } finally {
    await close()
  }
}

describe('doctor and the data-flow rules', () => {
  it('lists the sources and sinks in force', async () => {
    const check = await flowsCheck({private: ['mcp__vault__*']})
    expect(check).toMatchObject({
      status: 'pass',
      detail: 'sources: mcp__vault__read_secret; sinks: mcp__web__post (openWorldHint: true); action: ask',
    })
  }, 60_000)

  it('warns about an open-world tool no rule makes a sink, and a pattern that matches nothing', async () => {
    const check = await flowsCheck({
      private: ['mcp__vault__*'],
      external: ['mcp__mail__send'],
      trust_open_world: true,
    })
    expect(check?.status).toBe('warn')
    expect(check?.detail).toContain('sources: mcp__vault__read_secret; sinks: none; action: ask')
    expect(check?.detail).toContain(
      'mcp__web__post declares openWorldHint: true but is no sink (flows.trust_open_world: true and no flows.external pattern names it)',
    )
    expect(check?.detail).toContain(
      'flows.external pattern "mcp__mail__send" matches no tool of the connected servers',
    )
    expect(check?.fix).toContain('flows.external')
  }, 60_000)

  it('is not listed without flows: in the config', async () => {
    expect(await flowsCheck()).toBeUndefined()
  }, 60_000)
})
