// @tier unit
import {describe, expect, it} from 'vitest'

import {STEPS_PREFIX} from '../../src/shared/steps.js'
import {stepMedians, stepsLines, stepsTable} from './steps.js'

describe('the --steps view', () => {
  it("reads serve's step lines among its other stderr lines", () => {
    const stderr = [
      '[ptc-mcp] warn: something',
      `${STEPS_PREFIX}{"id":1,"steps":[["request read",1000],["sending answer",5000]]}`,
      `${STEPS_PREFIX}{"id":2,"steps":[["request read",9000],["sending answer",10000]]}`,
      '',
    ].join('\n')
    expect(stepsLines(stderr)).toEqual([
      [
        ['request read', 1000],
        ['sending answer', 5000],
      ],
      [
        ['request read', 9000],
        ['sending answer', 10_000],
      ],
    ])
  })

  it('gives the median of each step to the next in µs, by name, and of the whole', () => {
    const rows = stepMedians([
      [
        ['a', 0],
        ['b', 1000],
        ['c', 4000],
      ],
      [
        ['a', 0],
        ['b', 3000],
        ['c', 4000],
      ],
      [
        ['a', 0],
        ['c', 2000],
      ],
    ])
    expect(rows).toEqual([
      {step: 'a → b', medianUs: 2, n: 2},
      {step: 'b → c', medianUs: 2, n: 2},
      {step: 'a → c', medianUs: 2, n: 1},
      {step: 'whole', medianUs: 4, n: 3},
    ])
    expect(stepsTable('t', rows).split('\n')).toHaveLength(6)
  })
})
