import {describe, expect, it} from 'vitest'

import {unknownToolMessage} from './tool-lookup.js'

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
