import {describe, expect, it} from 'vitest'

import {lookupTool, unknownToolMessage} from './tool-lookup.js'

describe('unknownToolMessage', () => {
  const names = ['mcp__fin__query', 'mcp__fin__quote', 'mcp__web__search']

  it('suggests close names', () => {
    expect(unknownToolMessage('mcp__fin__qeury', names)).toMatch(
      /^Unknown tool 'mcp__fin__qeury'\. Did you mean mcp__fin__query/,
    )
  })

  it('says so when nothing is close, or nothing is available', () => {
    expect(unknownToolMessage('mcp__x__completely_different', names)).toMatch(/no tool has a similar name/)
    expect(unknownToolMessage('mcp__x__y', [])).toBe(
      "Unknown tool 'mcp__x__y': no tools are available right now.",
    )
  })
})

describe('lookupTool', () => {
  const tools = ['mcp__fin__query', 'mcp__fin__quote'].map((name) => ({
    name,
    server: 'fin',
    tool: name.slice('mcp__fin__'.length),
    description: '',
    inputSchema: {type: 'object'},
  }))
  const source = {getTool: (name: string) => tools.find((t) => t.name === name), listTools: () => tools}

  it('gives the tool, or the unknown-tool message naming the closest', () => {
    expect(lookupTool(source, 'mcp__fin__quote')).toEqual({tool: tools[1]})
    expect(lookupTool(source, 'mcp__fin__qeury')).toEqual({
      unknown: unknownToolMessage('mcp__fin__qeury', ['mcp__fin__query', 'mcp__fin__quote']),
    })
    expect(lookupTool(source, 'mcp__fin__qeury').unknown).toMatch(/Did you mean mcp__fin__query/)
  })
})
