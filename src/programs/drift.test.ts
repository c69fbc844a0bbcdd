// @tier unit
import {describe, expect, it} from 'vitest'

import {shapeDrift, shapePaths} from './drift.js'

describe('result-shape drift of saved programs (SPEC §17)', () => {
  it('names a field that became a list of another name, with both shapes', () => {
    const before = {items: [{id: 1, assignee: {login: 'a'}}]}
    const after = {items: [{id: 1, assignees: [{login: 'a'}]}]}
    expect(shapeDrift(before, after)).toEqual(['items[].assignee (object) is now items[].assignees (list)'])
  })

  it('names a changed type, a field gone and a field new; equal shapes give nothing', () => {
    expect(shapeDrift({n: 1, a: 'x', b: {c: 1}}, {n: '1', a: 'y', d: true})).toEqual([
      'n (int) is now str',
      'b (object) is now d (bool)',
    ])
    expect(shapeDrift({x: {y: 1}}, {})).toEqual(['x (object) is gone'])
    expect(shapeDrift({}, {z: [1]})).toEqual(['z (list) is new'])
    expect(shapeDrift({items: [{id: 1}, {id: 2}]}, {items: [{id: 9}]})).toEqual([])
  })

  it('merges list items and takes a null as no kind', () => {
    expect(shapePaths({l: [{a: null}, {a: 'x'}]})).toEqual(
      new Map([
        ['l', 'list'],
        ['l[]', 'object'],
        ['l[].a', 'str'],
      ]),
    )
  })
})
