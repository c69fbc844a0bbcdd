import {describe, expect, it} from 'vitest'

import {parseChildMessage, ProtocolError} from './protocol.js'

const line = (message: unknown) => Buffer.from(JSON.stringify(message))

describe('the plan message (the calls a program text shows, SPEC §12)', () => {
  it('reads tools, counts and samples', () => {
    const calls = [
      {tool: 'mcp__a__b', times: 24, samples: ['mcp__a__b(x=i)']},
      {tool: 'mcp__a__c', times: 'many', samples: []},
    ]
    expect(parseChildMessage(line({type: 'plan', calls}))).toEqual({type: 'plan', calls})
  })

  it.each([
    ['no list', {type: 'plan'}],
    ['a count of 0', {type: 'plan', calls: [{tool: 'mcp__a__b', times: 0, samples: []}]}],
    ['a count that is text', {type: 'plan', calls: [{tool: 'mcp__a__b', times: 'all', samples: []}]}],
    [
      'too many samples',
      {type: 'plan', calls: [{tool: 'mcp__a__b', times: 1, samples: ['a', 'b', 'c', 'd']}]},
    ],
    ['a long sample', {type: 'plan', calls: [{tool: 'mcp__a__b', times: 1, samples: ['x'.repeat(201)]}]}],
    [
      'too many tools',
      {type: 'plan', calls: Array.from({length: 65}, () => ({tool: 'mcp__a__b', times: 1, samples: []}))},
    ],
  ])('refuses %s', (_what, message) => {
    expect(() => parseChildMessage(line(message))).toThrow(ProtocolError)
  })
})
