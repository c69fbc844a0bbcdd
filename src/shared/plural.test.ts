// @tier unit
import {describe, expect, it} from 'vitest'

import {counted} from './plural.js'

describe('counted', () => {
  it('says "1 tool", "0 tools", "3 tools"', () => {
    expect(counted(1, 'tool')).toBe('1 tool')
    expect(counted(0, 'tool')).toBe('0 tools')
    expect(counted(3, 'MCP rule')).toBe('3 MCP rules')
  })
})
