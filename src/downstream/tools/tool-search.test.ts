import {describe, expect, it} from 'vitest'

import type {ToolInfo} from '../types.js'

import {MAX_SEARCH_RESULTS} from '../../shared/limits.js'
import {callableTools, searchTools, UnknownServerError} from './tool-search.js'

function tool(name: string, description: string, params: string[] = [], server = 'fs'): ToolInfo {
  return {
    name: `mcp__${server}__${name}`,
    server,
    tool: name,
    description,
    inputSchema: {type: 'object', properties: Object.fromEntries(params.map((p) => [p, {type: 'string'}]))},
  }
}

const tools = [
  tool('read_text_file', 'Read the complete contents of a file as text.\nMore lines.', ['path', 'head']),
  tool('list_directory', 'Get a detailed listing of all files and directories.', ['path']),
  tool('list_directory_with_sizes', 'Listing with sizes.', ['path', 'sortBy']),
  tool('create_entities', 'Create multiple new entities in the knowledge graph', ['entities'], 'memory'),
  tool('search_nodes', 'Search for nodes in the knowledge graph', ['query'], 'memory'),
]

describe('searchTools (list_callable_tools query)', () => {
  it('ranks name matches first and gives the first description line', () => {
    const found = searchTools(tools, 'read file')
    expect(found[0]).toEqual({
      name: 'mcp__fs__read_text_file',
      description: 'Read the complete contents of a file as text.',
    })
    expect(searchTools(tools, 'directory')[0]!.name).toBe('mcp__fs__list_directory')
  })

  it('matches parameter names and descriptions, and leaves out what matches nothing', () => {
    expect(searchTools(tools, 'sort').map((t) => t.name)).toEqual(['mcp__fs__list_directory_with_sizes'])
    expect(
      searchTools(tools, 'knowledge graph')
        .map((t) => t.name)
        .sort(),
    ).toEqual(['mcp__memory__create_entities', 'mcp__memory__search_nodes'])
    expect(searchTools(tools, 'zebra')).toEqual([])
    expect(searchTools(tools, '  ')).toEqual([])
  })

  it('answers at most 20', () => {
    const many = Array.from({length: 50}, (_, i) => tool(`get_item_${i}`, 'Get an item'))
    expect(searchTools(many, 'item')).toHaveLength(MAX_SEARCH_RESULTS)
  })
})

describe('callableTools (list_callable_tools)', () => {
  const servers = ['fs', 'memory', 'my-srv']

  it('lists every name as given, or one server named either way, or the matches of a query', () => {
    expect(callableTools(tools, {servers})).toEqual(tools.map((t) => t.name))
    expect(callableTools(tools, {server: 'memory', servers})).toEqual([
      'mcp__memory__create_entities',
      'mcp__memory__search_nodes',
    ])
    const mine = [tool('get', 'Gets.', [], 'my-srv')]
    expect(callableTools(mine, {server: 'my_srv', servers})).toEqual(['mcp__my-srv__get'])
    expect(callableTools(tools, {query: 'graph', server: 'fs', servers})).toEqual([])
  })

  it('a server that is not configured is an error naming the ones that are', () => {
    expect(() => callableTools(tools, {server: 'github', servers})).toThrow(
      new UnknownServerError("no server 'github': they are fs, memory, my-srv"),
    )
    expect(() => callableTools([], {server: 'github', servers: []})).toThrow(
      "no server 'github': none is configured",
    )
  })
})
