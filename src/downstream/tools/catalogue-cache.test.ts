import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import type {ServerConfig} from '../../config/schema.js'

import {defaultCatalogueDir, readCatalogue, writeCatalogueEntry} from './catalogue-cache.js'

const server = (name: string, args: string[] = ['server.js']): ServerConfig => ({
  name,
  transport: 'stdio',
  command: 'node',
  args,
  env: {},
})

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function cacheDir(): string {
  const root = mkdtempSync(join(tmpdir(), 'ptc-catalogue-'))
  dirs.push(root)
  return join(root, 'ptc-mcp', 'catalogue')
}

describe("the last session's catalogue (SPEC §5, kept under the shapes' rules)", () => {
  it('lives under $XDG_CACHE_HOME/ptc-mcp/catalogue', () => {
    expect(defaultCatalogueDir({XDG_CACHE_HOME: '/x/cache'})).toBe('/x/cache/ptc-mcp/catalogue')
  })

  it('gives back what each server had, by its identity, not its name; nothing before the first write', async () => {
    const dir = cacheDir()
    const fs = server('fs', ['fs.js', '/data'])
    expect(await readCatalogue(dir, [fs])).toEqual(new Map())
    expect(
      await writeCatalogueEntry(dir, fs, {
        name: 'fs',
        tools: 14,
        about: 'read_file',
        toolsKey: 'ab'.repeat(8),
      }),
    ).toBe(true)
    expect(await readCatalogue(dir, [fs])).toEqual(
      new Map([['fs', {name: 'fs', tools: 14, about: 'read_file', toolsKey: 'ab'.repeat(8)}]]),
    )
    // Renamed in the config: the same server. Another server under the old name: not it.
    expect((await readCatalogue(dir, [{...fs, name: 'files'}])).get('files')?.tools).toBe(14)
    expect(await readCatalogue(dir, [server('fs', ['other.js'])])).toEqual(new Map())
    // A private directory, files of this user only, no secret of the arguments kept.
    const [file] = readdirSync(dir)
    expect(readFileSync(join(dir, file!), 'utf8')).not.toContain('/data')
  })

  it('ignores a link, a file too big, a file of another server, and a directory open to others', async () => {
    const dir = cacheDir()
    const fs = server('fs')
    await writeCatalogueEntry(dir, fs, {name: 'fs', tools: 3})
    const [name] = readdirSync(dir)
    const path = join(dir, name!)
    const good = readFileSync(path, 'utf8')

    writeFileSync(path, `${good.slice(0, -1)}, "pad": "${'x'.repeat(5000)}"}`)
    expect(await readCatalogue(dir, [fs])).toEqual(new Map())

    const elsewhere = join(dir, '..', 'planted.json')
    writeFileSync(elsewhere, good)
    rmSync(path)
    symlinkSync(elsewhere, path)
    expect(await readCatalogue(dir, [fs])).toEqual(new Map())

    rmSync(path)
    writeFileSync(path, good.replace(/"server":"[\da-f]+"/, `"server":"${'0'.repeat(32)}"`))
    expect(await readCatalogue(dir, [fs])).toEqual(new Map())

    writeFileSync(path, good)
    expect((await readCatalogue(dir, [fs])).get('fs')?.tools).toBe(3)
    chmodSync(dir, 0o755)
    expect(await readCatalogue(dir, [fs])).toEqual(new Map())
    expect(await writeCatalogueEntry(dir, fs, {name: 'fs', tools: 4})).toBe(false)
  })

  it('refuses a cache directory that is a link', async () => {
    const dir = cacheDir()
    const real = `${dir}-real`
    mkdirSync(real, {recursive: true, mode: 0o700})
    mkdirSync(join(dir, '..'), {recursive: true})
    symlinkSync(real, dir)
    expect(await writeCatalogueEntry(dir, server('fs'), {name: 'fs', tools: 1})).toBe(false)
    expect(readdirSync(real)).toEqual([])
  })
})
