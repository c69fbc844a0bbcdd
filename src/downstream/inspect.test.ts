import {describe, expect, test} from 'vitest'

import {unknownToolMessage} from './inspect.js'
import {MAX_SUGGESTED_NAME_CHARS, suggestNames} from './naming.js'

describe('unknown tool names', () => {
  const names = ['mcp__fin__query', 'mcp__fin__quote']

  test('a near miss gets suggestions', () => {
    expect(unknownToolMessage('mcp__fin__qeury', names)).toBe(
      "Unknown tool 'mcp__fin__qeury'. Did you mean mcp__fin__query?",
    )
  })

  test('a name longer than any real one gets no suggestions, and the error repeats only its head', () => {
    const long = `mcp__fin__${'q'.repeat(MAX_SUGGESTED_NAME_CHARS)}`
    expect(suggestNames(long, names)).toEqual([])
    // Just under the bound it is still compared.
    expect(suggestNames(`mcp__fin__query${'y'.repeat(10)}`, names)).toEqual(['mcp__fin__query'])
    const huge = 'q'.repeat(16_000_000)
    expect(unknownToolMessage(huge, names)).toBe(
      `Unknown tool '${'q'.repeat(MAX_SUGGESTED_NAME_CHARS)}…' (16000000 characters), and no tool has a similar name; list_callable_tools() shows the 2 available tools.`,
    )
  })
})
