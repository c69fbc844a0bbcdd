// @tier unit
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ConfigError} from '../shared/errors.js'
import {loadConfigLeniently} from './degrade.js'
import {loadConfig} from './load.js'

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-mcp-degrade-'))
})

afterEach(async () => {
  await rm(dir, {recursive: true, force: true})
})

async function load(text: string) {
  const flag = join(dir, 'config.yaml')
  await writeFile(flag, text)
  return {flag, loaded: await loadConfigLeniently({flag, env: {HOME: dir}})}
}

describe('the config as serve takes it', () => {
  it('leaves out only the entries with problems, each with its reason; the strict load still fails', async () => {
    const text = [
      'servers:',
      '  - {name: a, command: node, env: {K: "${UNSET_A}"}}',
      '  - {name: b, command: node}',
      '  - {name: c, transport: sse, url: "ftp://x"}',
      '  - {name: b, command: other}',
      '  - {command: node}',
    ].join('\n')
    const {flag, loaded} = await load(text)
    expect(loaded.error).toBeNull()
    expect(loaded.config.servers.map((s) => s.name)).toEqual(['b'])
    expect(loaded.unusable.map((s) => [s.name, s.transport])).toEqual([
      ['a', 'stdio'],
      ['c', 'sse'],
      ['servers[4]', 'stdio'],
    ])
    expect(loaded.unusable[0]?.reason).toContain('servers[0].env.K: environment variable UNSET_A is not set')
    expect(loaded.unusable[2]?.reason).toBe(
      `invalid config entry (servers[4].name: missing (required)); fix it in ${flag}`,
    )
    expect(loaded.warnings.join('\n')).toContain(
      'servers[3] left out: invalid config entry (servers[3].name: duplicate',
    )
    await expect(loadConfig({flag, env: {HOME: dir}})).rejects.toBeInstanceOf(ConfigError)
  })

  it.each([
    ['a YAML syntax error', 'servers:\n  - name: [a\n', 'Invalid YAML in'],
    ['a wrong shape', 'servers: {a: 1}\n', 'servers: expected a list, got a mapping'],
    ['a bad execution value', 'servers: []\nexecution: {timeout_seconds: -1}\n', 'execution.timeout_seconds'],
    ['an unknown section', 'sever: []\n', 'sever: unknown key'],
  ])('with %s, keeps the error for every call and no servers', async (_, text, message) => {
    const {loaded} = await load(text)
    expect(loaded.error).toBeInstanceOf(ConfigError)
    expect(loaded.error?.message).toContain(message)
    expect(loaded.error?.suggestion).toBeTruthy()
    expect(loaded.config.servers).toEqual([])
  })

  it('an explicit path that does not exist is an error to answer with, not a crash', async () => {
    const loaded = await loadConfigLeniently({flag: join(dir, 'missing.yaml'), env: {HOME: dir}})
    expect(loaded.error?.message).toContain('Config file not found')
  })
})

describe('examples/config.yaml works from any working directory', () => {
  it("takes the example server's script from the config's directory", async () => {
    const flag = resolve(import.meta.dirname, '../../examples/config.yaml')
    const {config} = await loadConfig({flag, cwd: dir, env: {HOME: dir}})
    expect(config.servers[0]).toMatchObject({
      name: 'finance',
      args: [resolve(import.meta.dirname, '../../examples/finance-server.js')],
    })
  })
})
