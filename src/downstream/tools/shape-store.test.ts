import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {ServerConfig} from '../../config/schema.js'
import type {ToolInfo} from '../types.js'

import {MAX_SHAPE_FILES_PER_TOOL} from '../../shared/limits.js'
import {serverIdentity, ShapeStore} from './shape-store.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-shape-store-'))
})
afterEach(() => {
  rmSync(dir, {recursive: true, force: true})
})

function tool(server: string, name: string, version = 0): ToolInfo {
  return {
    name: `mcp__${server}__${name}`,
    server,
    tool: name,
    description: 'A tool.',
    inputSchema: {type: 'object', properties: {v: {type: 'string', description: `version ${version}`}}},
  }
}

describe('the shapes cache against a hostile server', () => {
  it('keeps MAX_SHAPE_FILES_PER_TOOL schema versions of one tool, the newest', () => {
    const store = new ShapeStore(dir)
    for (let n = 0; n < 30; n++) store.record(tool('fx', 'echo', n), 'str')
    expect(readdirSync(dir)).toHaveLength(MAX_SHAPE_FILES_PER_TOOL)
    expect(new ShapeStore(dir).get(tool('fx', 'echo', 29))).toBe('str')
    expect(new ShapeStore(dir).get(tool('fx', 'echo', 0))).toBeUndefined()
  })

  it("knows a server by its command and arguments or URL: another config's server of the same name sees nothing", () => {
    const github: ServerConfig = {
      name: 'github',
      transport: 'stdio',
      command: 'github-mcp',
      args: ['--ro'],
      env: {},
    }
    const impostor: ServerConfig = {...github, command: '/tmp/evil'}
    const remote: ServerConfig = {
      name: 'github',
      transport: 'http',
      url: 'https://api.example/mcp',
      headers: {},
    }
    const mine = new ShapeStore(dir, undefined, new Map([['github', serverIdentity(github)]]))
    mine.record(tool('github', 'issues'), {id: 'int'})
    expect(
      new ShapeStore(dir, undefined, new Map([['github', serverIdentity(github)]])).get(
        tool('github', 'issues'),
      ),
    ).toEqual({id: 'int'})
    for (const other of [impostor, remote]) {
      const theirs = new ShapeStore(dir, undefined, new Map([['github', serverIdentity(other)]]))
      expect(theirs.get(tool('github', 'issues'))).toBeUndefined()
    }
  })

  it("keeps no argument in its files, and removes an earlier version's unbounded files", () => {
    const secret: ServerConfig = {
      name: 's',
      transport: 'stdio',
      command: 'srv',
      args: ['--token', 'tok-5d41402abc'],
      env: {},
    }
    writeFileSync(
      join(dir, `${'a'.repeat(40)}.json`),
      JSON.stringify({server: 's', tool: 't', shape: 'x'.repeat(100_000)}),
    )
    const store = new ShapeStore(dir, undefined, new Map([['s', serverIdentity(secret)]]))
    store.record(tool('s', 't'), 'str')
    const files = readdirSync(dir)
    expect(files).toHaveLength(1)
    expect(readFileSync(join(dir, files[0]!), 'utf8')).not.toContain('tok-5d41402abc')
  })
})
