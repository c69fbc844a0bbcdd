// @tier unit
import {describe, expect, it} from 'vitest'

import type {ServerConfig} from '../config/schema.js'
import type {RawServer} from './sources.js'

import {sharedStateWarning, stateFile} from './shared-state.js'

const stdio = (args: string[], env: Record<string, string> = {}): ServerConfig => ({
  name: 'srv',
  transport: 'stdio',
  command: 'npx',
  args,
  env,
})
const raw = (scope: RawServer['origin']['scope']): RawServer => ({
  name: 'memory',
  entry: {},
  origin: {scope, path: '/home/me/.claude.json'},
})

describe('a server that keeps state in a file, imported by init', () => {
  it('is found by a variable naming a file or directory, or by a package with a default file', () => {
    expect(stateFile(stdio(['x'], {MEMORY_FILE_PATH: '/m.json', API_KEY: 'k'}))).toBe(
      'MEMORY_FILE_PATH=/m.json',
    )
    expect(stateFile(stdio(['x'], {DB_PATH: '/d.db', DATA_DIR: '/data'}))).toBe(
      'DB_PATH=/d.db, DATA_DIR=/data',
    )
    expect(stateFile(stdio(['-y', '@modelcontextprotocol/server-memory']))).toBe(
      'the default file of @modelcontextprotocol/server-memory',
    )
    expect(stateFile(stdio(['x'], {PATH: '/usr/bin', TOKEN: 't'}))).toBeUndefined()
  })

  it('is warned about when what it came from still runs it, with the line that removes it there', () => {
    const server = stdio(['x'], {MEMORY_FILE_PATH: '/m.json'})
    expect(sharedStateWarning(raw('project'), server)).toBe(
      'Claude Code also runs it, and both would write MEMORY_FILE_PATH=/m.json: once ptc-mcp serves it, remove it there: `claude mcp remove memory --scope project`',
    )
    expect(sharedStateWarning(raw('claude-desktop'), server)).toContain('Claude Desktop also runs it')
    expect(sharedStateWarning(raw('file'), server)).toBeUndefined()
  })
})
