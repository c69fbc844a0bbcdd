// @tier unit
import {describe, expect, it} from 'vitest'

import type {ServerConfig} from '../config/schema.js'

import {inspectToolDescription, listCallableToolsDescription} from './descriptions.js'
import {ServerCatalogue} from './server-catalogue.js'

const server = (name: string): ServerConfig => ({
  name,
  transport: 'stdio',
  command: 'node',
  args: [name],
  env: {},
})

describe('the catalogue serve tells its client (SPEC §5)', () => {
  it("names every configured server, connecting until it is seen, in the tools' first lines too", async () => {
    const catalogue = await ServerCatalogue.load([server('fs'), server('memory')], null)
    expect(catalogue.instructions()).toContain('- fs (connecting)\n- memory (connecting)')
    catalogue.update([{name: 'fs', tools: 14, toolsKey: 'a'.repeat(16), about: 'read_file'}])
    expect(catalogue.instructions()).toContain('- fs (14 tools): read_file\n- memory (connecting)')
    const list = listCallableToolsDescription(catalogue.serversWithCounts())
    expect(list.split('\n')[0]).toBe(
      'Lists the tools of the MCP servers fs (14 tools), memory (connecting), which execute_program programs call.',
    )
    expect(inspectToolDescription(catalogue.serverNames()).split('\n')[0]).toBe(
      'Signatures of the tools of the MCP servers fs, memory, for execute_program programs.',
    )
  })

  it("tells its listeners when a server's tools change, not when only its words do, nor for an unknown server", async () => {
    const catalogue = await ServerCatalogue.load([server('fs')], null)
    let changes = 0
    const stop = catalogue.onChange(() => changes++)
    const fs = {name: 'fs', tools: 2, toolsKey: 'a'.repeat(16)}
    catalogue.update([fs])
    expect(changes).toBe(1)
    catalogue.update([fs])
    catalogue.update([{...fs, about: 'new words'}])
    catalogue.update([{name: 'other', tools: 1, toolsKey: 'c'.repeat(16)}])
    expect(changes).toBe(1)
    // Same count, other tools.
    catalogue.update([{...fs, toolsKey: 'b'.repeat(16)}])
    expect(changes).toBe(2)
    stop()
    catalogue.update([{...fs, tools: 3}])
    expect(changes).toBe(2)
  })
})
