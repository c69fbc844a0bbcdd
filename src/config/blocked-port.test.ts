// @tier unit
// A server URL on a port fetch never connects to is a problem of the URL, said where the config is
// read: the entry is unusable with that reason (serve, list), and the strict load names it.
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, expect, it} from 'vitest'

import {loadConfigLeniently} from './degrade.js'
import {loadConfig} from './load.js'

const PROBLEM =
  'servers[0].url: port 6000 is one fetch never connects to (a blocked port of the Fetch standard): serve the endpoint on another port'

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-mcp-blocked-port-'))
})

afterEach(async () => {
  await rm(dir, {recursive: true, force: true})
})

it("a server URL on fetch's blocked port 6000 is a URL problem, not a connection failure", async () => {
  const flag = join(dir, 'config.yaml')
  await writeFile(
    flag,
    'servers:\n  - {name: remote, transport: http, url: "http://127.0.0.1:6000/mcp"}\n  - {name: ok, transport: http, url: "http://127.0.0.1:6001/mcp"}\n',
  )
  const lenient = await loadConfigLeniently({flag, env: {HOME: dir}})
  expect(lenient.config.servers.map((server) => server.name)).toEqual(['ok'])
  expect(lenient.unusable.map((server) => server.name)).toEqual(['remote'])
  expect(lenient.unusable[0]?.reason).toContain(PROBLEM)
  await expect(loadConfig({flag, env: {HOME: dir}})).rejects.toThrow(PROBLEM)
})
