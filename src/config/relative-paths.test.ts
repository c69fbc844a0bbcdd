// @tier unit
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {resolveServerPaths} from './relative-paths.js'
import {serverSchema} from './schema.js'

let base: string

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ptc-mcp-paths-'))
  await mkdir(join(base, 'servers'))
  await writeFile(join(base, 'servers', 'fin.js'), '')
  await writeFile(join(base, 'server.py'), '')
  await writeFile(join(base, 'run.sh'), '')
})

afterAll(async () => {
  await rm(base, {recursive: true, force: true})
})

const stdio = (fields: Record<string, unknown>) => serverSchema.parse({name: 's', ...fields})

describe("relative paths are taken from the config file's directory", () => {
  it('resolves arguments and a command that name existing files there', () => {
    const server = resolveServerPaths(
      stdio({command: './run.sh', args: ['servers/fin.js', 'server.py', '--port', '8080', 'missing.js']}),
      base,
    )
    expect(server).toMatchObject({
      command: join(base, 'run.sh'),
      args: [join(base, 'servers', 'fin.js'), join(base, 'server.py'), '--port', '8080', 'missing.js'],
    })
  })

  it('leaves bare commands to PATH, options, URLs and absolute paths alone', () => {
    const args = ['--config=servers/fin.js', 'https://servers/fin.js', '/abs/servers/fin.js', '-y']
    expect(resolveServerPaths(stdio({command: 'node', args}), base)).toMatchObject({command: 'node', args})
  })

  it('resolves a relative cwd, and then leaves command and arguments to it', () => {
    const server = resolveServerPaths(stdio({command: './fin.js', args: ['fin.js'], cwd: 'servers'}), base)
    expect(server).toMatchObject({command: './fin.js', args: ['fin.js'], cwd: join(base, 'servers')})
  })

  it('leaves remote servers alone', () => {
    const remote = serverSchema.parse({name: 'r', transport: 'http', url: 'https://x.example/mcp'})
    expect(resolveServerPaths(remote, base)).toBe(remote)
  })
})
