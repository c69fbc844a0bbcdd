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

describe('lookupTool of a hidden tool', () => {
  const tool = (name: string) => ({
    name: `mcp__fs__${name}`,
    server: 'fs',
    tool: name,
    description: '',
    inputSchema: {},
  })
  const listed = [tool('edit_file'), tool('read_file')]
  const hiddenTools = new Map([
    [
      'mcp__fs__move_file',
      {
        tool: tool('move_file'),
        reason: 'hidden by tools.block ("mcp__fs__move_file")',
        told: false,
        fix: 'y',
      },
    ],
    [
      'mcp__fs__write_file',
      {
        tool: tool('write_file'),
        reason: `hidden by Claude Code's deny rule "mcp__fs__write_*" (/h/.claude/settings.json)`,
        told: true,
        fix: 'x',
      },
    ],
  ])
  const source = {
    getTool: (name: string) => listed.find((t) => t.name === name),
    listTools: () => listed,
    hiddenTool: (name: string) => hiddenTools.get(name),
  }

  it('a deny rule: named as hidden, with the rule and its file, and no other tool suggested', () => {
    const found = lookupTool(source, 'mcp__fs__write_file')
    expect(found.unknown).toBe(
      `Tool 'mcp__fs__write_file' is hidden by Claude Code's deny rule "mcp__fs__write_*" (/h/.claude/settings.json): the user does not allow calls to it.`,
    )
    expect(found.hidden?.told).toBe(true)
    // Without the hidden lookup the same name would point at a tool of the same server.
    expect(
      unknownToolMessage(
        'mcp__fs__write_file',
        listed.map((t) => t.name),
      ),
    ).toMatch(/Did you mean mcp__fs__/)
  })

  it('tools.block: unknown, as SPEC §4 says, and still no tool of its server suggested', () => {
    expect(lookupTool(source, 'mcp__fs__move_file').unknown).toBe(
      "Unknown tool 'mcp__fs__move_file'; list_callable_tools() shows the 2 available tools.",
    )
  })
})
