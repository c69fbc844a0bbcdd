// @tier unit
import {describe, expect, it} from 'vitest'

import {MAX_INSTRUCTIONS_CHARS, serverInstructions} from './instructions.js'

describe('serve instructions (SPEC §5)', () => {
  it('say when to write a program, then name every server with its tool count and what it is for', () => {
    const text = serverInstructions([
      {name: 'fs', tools: 14, about: 'read_file, write_file, edit_file, create_directory'},
      {name: 'memory', tools: 1, about: 'Knowledge graph'},
      {name: 'slow'},
    ])
    const lines = text.split('\n')
    expect(lines[0]).toMatch(/^When a task needs more than a couple of tool calls.*execute_program/)
    expect(lines.slice(2)).toEqual([
      '- fs (14 tools): read_file, write_file, edit_file, create_directory',
      '- memory (1 tool): Knowledge graph',
      '- slow (connecting)',
    ])
  })

  it('stay within 2,000 characters however many servers, shortening words first, then naming the rest', () => {
    const about = 'x'.repeat(100)
    const few = serverInstructions(
      Array.from({length: 12}, (_, i) => ({name: `server${i}`, tools: i, about})),
    )
    expect(few.length).toBeLessThanOrEqual(MAX_INSTRUCTIONS_CHARS)
    // Twelve servers fit once their words are shorter: every one is still named with its count.
    for (let i = 0; i < 12; i++) expect(few).toContain(`- server${i} (${i} tool`)
    const many = Array.from({length: 200}, (_, i) => ({name: `server-number-${i}`, tools: 3, about}))
    const text = serverInstructions(many)
    expect(text.length).toBeLessThanOrEqual(MAX_INSTRUCTIONS_CHARS)
    expect(text).toContain('- server-number-0 (3 tools)')
    expect(text).toMatch(/\n- \d+ more: server-number-\d+, /)
    expect(text.endsWith('…')).toBe(true)
  })

  it('cut an endless server name', () => {
    const text = serverInstructions([{name: 'n'.repeat(5000), tools: 1}])
    expect(text.length).toBeLessThanOrEqual(MAX_INSTRUCTIONS_CHARS)
    expect(text).toContain(`- ${'n'.repeat(63)}… (1 tool)`)
  })

  it('say so when no server is configured', () => {
    expect(serverInstructions([])).toContain('No servers are configured yet')
  })
})
