// @tier unit
import {describe, expect, it} from 'vitest'

import type {ToolInfo} from '../downstream/types.js'

import {shortJson} from './approvals.js'
import {MAX_LISTED_CALLS, questionText} from './question-text.js'

const tool = (name: string): ToolInfo => ({
  name: `mcp__fs__${name}`,
  server: 'fs',
  tool: name,
  description: '',
  inputSchema: {type: 'object'},
})

describe('what a question says', () => {
  it('the question before the run: each tool with how often and one call as written', () => {
    const text = questionText({
      kind: 'plan',
      calls: [
        {
          tool: tool('write_file'),
          times: 24,
          samples: ['mcp__fs__write_file(path=f"out/{i}.txt", content=c)'],
          why: 'a rule',
        },
        {tool: tool('move_file'), times: 'many', samples: [], why: 'a rule'},
      ],
    })
    expect(text).toBe(
      [
        'A program run by ptc-mcp will make these calls that need your approval (seen before it runs):',
        '- mcp__fs__write_file 24 times, e.g. mcp__fs__write_file(path=f"out/{i}.txt", content=c)',
        '- mcp__fs__move_file possibly many times (in a loop or a function)',
        'Why you are asked: a rule.',
      ].join('\n'),
    )
  })

  it("the program's text is shown on one line, its control characters and bidi overrides shown, not obeyed", () => {
    const text = questionText({
      kind: 'plan',
      calls: [{tool: tool('w'), times: 2, samples: ['mcp__fs__w(\n  p="\u202Etxt.exe\u001B[2K")'], why: 'r'}],
    })
    expect(text.split('\n')).toHaveLength(3)
    // eslint-disable-next-line no-control-regex -- control characters are what must not be there
    expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E]/)
    expect(text).toContain(String.raw`e.g. mcp__fs__w( p="\u{202e}txt.exe␛[2K")`)
  })

  it('calls waiting together: one line each, up to ten, the rest counted; why once when shared', () => {
    const calls = Array.from({length: 12}, (_, n) => ({
      tool: tool('write_file'),
      argsText: shortJson({path: `f${n}`, content: 'x'.repeat(1000)}),
      why: 'a rule',
    }))
    const lines = questionText({kind: 'calls', calls}).split('\n')
    expect(lines[0]).toBe('A program run by ptc-mcp wants to make 12 calls that need your approval:')
    expect(lines.slice(1, 1 + MAX_LISTED_CALLS).every((line) => line.length < 260)).toBe(true)
    expect(lines[1]).toMatch(/^1\. mcp__fs__write_file \{"path":"f0","content":"x+…x+"\}$/)
    expect(lines.at(-2)).toBe('... and 2 more')
    expect(lines.at(-1)).toBe('Why you are asked: a rule.')
  })

  it('one call reads as it always did', () => {
    expect(questionText({kind: 'calls', calls: [{tool: tool('w'), argsText: '{"a":1}', why: 'r'}]})).toBe(
      'A program run by ptc-mcp wants to call mcp__fs__w (tool "w" of server "fs").\nArguments: {"a":1}\nWhy you are asked: r.',
    )
  })
})
