import {describe, expect, it} from 'vitest'

import type {ToolInfo} from './types.js'

import {describeTool, NO_OUTPUT_SCHEMA_NOTE, unknownToolMessage} from './inspect.js'

const QUERY: ToolInfo = {
  name: 'mcp__fin__query',
  server: 'fin',
  tool: 'query',
  description: 'Financial rows.',
  inputSchema: {type: 'object', properties: {ticker: {type: 'string'}}, required: ['ticker']},
}

describe('describeTool', () => {
  it('gives null outputSchema and a note when the server declares none', () => {
    const described = describeTool(QUERY)
    expect(described).toEqual({
      name: 'mcp__fin__query',
      description: 'Financial rows.',
      inputSchema: QUERY.inputSchema,
      outputSchema: null,
      note: NO_OUTPUT_SCHEMA_NOTE,
      signature: expect.stringMatching(/^await mcp__fin__query\(\*, ticker: str\)/),
    })
    expect(Object.keys(described)).toEqual([
      'name',
      'description',
      'inputSchema',
      'outputSchema',
      'note',
      'signature',
    ])
  })

  it('includes a declared outputSchema and no note', () => {
    const outputSchema = {type: 'object', properties: {rows: {type: 'array'}}}
    const described = describeTool({...QUERY, outputSchema})
    expect(described.outputSchema).toBe(outputSchema)
    expect(described).not.toHaveProperty('note')
  })
})

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
