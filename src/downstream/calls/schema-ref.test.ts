import {describe, expect, it} from 'vitest'

import {followRefs, pointerSegments, refTarget} from './schema-ref.js'

const schema = {
  $defs: {
    Color: {enum: ['red', 'green']},
    'a/b': {type: 'string'},
    'with space': {type: 'number'},
    Alias: {$ref: '#/$defs/Color'},
    Loop: {$ref: '#/$defs/Loop'},
    Broken: {$ref: '#/$defs/Missing'},
  },
  prefixItems: [{type: 'boolean'}],
}

describe('pointerSegments', () => {
  it('splits a JSON Pointer and decodes ~1 and ~0', () => {
    expect(pointerSegments('')).toEqual([])
    expect(pointerSegments('/a~1b/0/~0x')).toEqual(['a/b', '0', '~x'])
    expect(pointerSegments('/my key/')).toEqual(['my key', ''])
  })
})

describe('refTarget', () => {
  it('finds local references, escaped as a URI fragment, into mappings and lists', () => {
    expect(refTarget(schema, '#/$defs/Color')).toEqual({enum: ['red', 'green']})
    expect(refTarget(schema, '#/%24defs/with%20space')).toEqual({type: 'number'})
    expect(refTarget(schema, '#/$defs/a~1b')).toEqual({type: 'string'})
    expect(refTarget(schema, '#/prefixItems/0')).toEqual({type: 'boolean'})
    expect(refTarget(schema, '#')).toBe(schema)
  })

  it('finds nothing for other documents, anchors, missing or inherited keys and bad escapes', () => {
    for (const ref of [
      'other.json#/$defs/Color',
      '#Color',
      '#/$defs/Nope',
      '#/prefixItems/1',
      '#/$defs/constructor',
      '#/__proto__',
      '#/%E0%A4%A',
    ]) {
      expect(refTarget(schema, ref), ref).toBeUndefined()
    }
  })
})

describe('followRefs', () => {
  it('follows a chain to its end, and stops at a reference that leads nowhere or goes round', () => {
    expect(followRefs(schema, {$ref: '#/$defs/Alias'})).toEqual({enum: ['red', 'green']})
    expect(followRefs(schema, {type: 'string'})).toEqual({type: 'string'})
    expect(followRefs(schema, {$ref: '#/$defs/Broken'})).toEqual({$ref: '#/$defs/Missing'})
    expect(followRefs(schema, {$ref: '#/$defs/Loop'})).toEqual({$ref: '#/$defs/Loop'})
    expect(followRefs(schema, true)).toBe(true)
  })
})
