// @tier unit
import {chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {defaultStoreDir, expiresAt, recordFileName, TokenStore} from './store.js'

let root: string
let store: TokenStore

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ptc-oauth-store-'))
  store = new TokenStore({dir: join(root, 'oauth'), watchIntervalMs: 20})
})

afterEach(async () => {
  await rm(root, {recursive: true, force: true})
})

const URL_A = 'https://a.example/mcp'
const URL_B = 'https://b.example/mcp'

describe('TokenStore', () => {
  it('keeps one 0600 file per server URL in a 0700 directory, and leaves no temporary file', async () => {
    await store.write({
      version: 1,
      server_url: URL_A,
      tokens: {access_token: 'a-token', token_type: 'Bearer'},
    })
    await store.write({
      version: 1,
      server_url: URL_B,
      tokens: {access_token: 'b-token', token_type: 'Bearer'},
    })
    await store.update(URL_A, (r) => ({...r, obtained_at: 1}))
    expect((await stat(store.dir)).mode.toString(8)).toMatch(/700$/)
    const files = (await readdir(store.dir)).sort()
    expect(files).toEqual([recordFileName(URL_A), recordFileName(URL_B)].sort())
    for (const file of files) expect((await stat(join(store.dir, file))).mode.toString(8)).toMatch(/600$/)
    expect(await store.read(URL_A)).toMatchObject({tokens: {access_token: 'a-token'}, obtained_at: 1})
    expect((await store.list()).map((r) => r.server_url).sort()).toEqual([URL_A, URL_B])
  })

  it('takes group and other permissions off an existing directory', async () => {
    await mkdir(store.dir, {recursive: true})
    await chmod(store.dir, 0o755)
    await store.write({version: 1, server_url: URL_A})
    expect((await stat(store.dir)).mode.toString(8)).toMatch(/700$/)
  })

  it('names files by a hash of the normalised URL, and ignores a record that is not for the URL asked', async () => {
    expect(recordFileName('https://A.example/mcp')).toBe(recordFileName('https://a.example/mcp'))
    expect(recordFileName(URL_A)).toMatch(/^[0-9a-f]{32}\.json$/)
    await mkdir(store.dir, {recursive: true})
    await writeFile(store.pathFor(URL_A), JSON.stringify({version: 1, server_url: URL_B}))
    expect(await store.read(URL_A)).toBeUndefined()
    await writeFile(store.pathFor(URL_A), 'not json')
    expect(await store.read(URL_A)).toBeUndefined()
  })

  it('deletes a record, saying whether there was one', async () => {
    await store.write({version: 1, server_url: URL_A})
    expect(await store.delete(URL_A)).toBe(true)
    expect(await store.delete(URL_A)).toBe(false)
    expect(await store.read(URL_A)).toBeUndefined()
  })

  it('tells a watcher when a record is written (by rename) and when it is deleted', async () => {
    const changes: string[] = []
    let notify: () => void = () => {}
    const stop = store.watch(URL_A, () => {
      changes.push('change')
      notify()
    })
    const next = () =>
      new Promise<void>((resolve) => {
        notify = resolve
      })
    try {
      let seen = next()
      await store.write({version: 1, server_url: URL_A})
      await seen
      seen = next()
      await store.delete(URL_A)
      await seen
      expect(changes).toEqual(['change', 'change'])
    } finally {
      stop()
    }
    // The written text is the record, nothing else.
    await store.write({version: 1, server_url: URL_B, tokens: {access_token: 'x', token_type: 'Bearer'}})
    expect(JSON.parse(await readFile(store.pathFor(URL_B), 'utf8'))).toEqual({
      version: 1,
      server_url: URL_B,
      tokens: {access_token: 'x', token_type: 'Bearer'},
    })
  })
})

describe('defaultStoreDir', () => {
  it('is $XDG_STATE_HOME/ptc-mcp/oauth, else ~/.local/state/ptc-mcp/oauth (a relative XDG_STATE_HOME is ignored)', () => {
    expect(defaultStoreDir({XDG_STATE_HOME: '/state', HOME: '/h'})).toBe('/state/ptc-mcp/oauth')
    expect(defaultStoreDir({HOME: '/h'})).toBe('/h/.local/state/ptc-mcp/oauth')
    expect(defaultStoreDir({XDG_STATE_HOME: 'rel', HOME: '/h'})).toBe('/h/.local/state/ptc-mcp/oauth')
  })
})

describe('expiresAt', () => {
  it('counts expires_in from when the tokens were obtained; null when the server did not say', () => {
    const tokens = {access_token: 't', token_type: 'Bearer', expires_in: 60}
    expect(expiresAt({version: 1, server_url: URL_A, tokens, obtained_at: 1000})).toBe(61_000)
    expect(
      expiresAt({version: 1, server_url: URL_A, tokens: {...tokens, expires_in: undefined}, obtained_at: 1}),
    ).toBeNull()
    expect(expiresAt()).toBeNull()
  })
})
