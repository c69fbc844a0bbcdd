// @tier unit
import {describe, expect, it} from 'vitest'

import {misspeltCommand} from './command-not-found.js'

const COMMANDS = [
  'auth',
  'doctor',
  'init',
  'inspect',
  'list',
  'programs:list',
  'programs:show',
  'run',
  'serve',
]

describe('misspeltCommand', () => {
  it('finds the command of a misspelt one given with arguments, and keeps the arguments', () => {
    expect(misspeltCommand('inspct:mcp__fs__read_file', COMMANDS)).toEqual({
      typed: 'inspct',
      closest: 'inspect',
      rest: ['mcp__fs__read_file'],
    })
  })

  it('prefers the longest command the words are close to', () => {
    expect(misspeltCommand('programs:shwo:report', COMMANDS)).toEqual({
      typed: 'programs:shwo',
      closest: 'programs:show',
      rest: ['report'],
    })
  })

  it('names only the first word when nothing is close', () => {
    expect(misspeltCommand('frobnicate:x:y', COMMANDS)).toEqual({
      typed: 'frobnicate',
      closest: undefined,
      rest: ['x', 'y'],
    })
  })
})
