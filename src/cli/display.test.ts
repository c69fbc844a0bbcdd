// @tier unit
import chalk from 'chalk'
import {describe, expect, it} from 'vitest'

import {formatToolTable} from './display.js'

const tool = (name: string, description: string, needs_approval?: string) => ({
  name: `mcp__fs__${name}`,
  server: 'fs',
  tool: name,
  description,
  inputSchema: {type: 'object'},
  needs_approval,
})

describe('formatToolTable', () => {
  it('keeps every description cell within 80 characters, the [asks] mark included', () => {
    const {level} = chalk
    chalk.level = 0
    try {
      const long = 'Create a new file or completely overwrite an existing file with new content. '.repeat(3)
      const lines = formatToolTable([
        tool('read_file', long),
        tool('write_file', long, 'the tool declares destructiveHint: true'),
      ]).split('\n')
      const start = lines[0]!.indexOf('DESCRIPTION')
      const cells = lines.slice(1).map((line) => line.slice(start))
      expect(cells[1]).toMatch(/^\[asks\] Create a new file/)
      for (const cell of cells) {
        expect(cell.endsWith('…')).toBe(true)
        expect(cell).toHaveLength(80)
      }
    } finally {
      chalk.level = level
    }
  })
})
