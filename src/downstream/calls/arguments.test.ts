import {describe, expect, it} from 'vitest'

import {MAX_SUGGESTED_NAME_CHARS} from '../../shared/limits.js'
import {prepareArguments} from './arguments.js'

const listing = {
  type: 'object',
  properties: {
    path: {type: 'string'},
    sortBy: {type: 'string', enum: ['name', 'size']},
    head: {type: 'number'},
  },
  required: ['path'],
}

describe('argument rules before validation (SPEC §6)', () => {
  it('refuses an unlisted argument with the closest listed one', () => {
    expect(prepareArguments(listing, {path: '.', sort_by: 'size'}).problems).toEqual([
      "unexpected argument 'sort_by'; did you mean 'sortBy'?",
    ])
    expect(prepareArguments(listing, {path: '.', zzz: 1}).problems).toEqual([
      "unexpected argument 'zzz'; accepted: path, sortBy, head",
    ])
    expect(prepareArguments({type: 'object', properties: {}}, {x: 1}).problems).toEqual([
      "unexpected argument 'x'; this tool takes no arguments",
    ])
  })

  it('suggests a name the call has not passed yet', () => {
    const sum = {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']}
    expect(prepareArguments(sum, {a: 1, c: 2}).problems).toEqual([
      "unexpected argument 'c'; did you mean 'b'?",
    ])
    // Every listed name passed already: the list, not a name that is taken.
    expect(prepareArguments(sum, {a: 1, b: 2, c: 3}).problems).toEqual([
      "unexpected argument 'c'; accepted: a, b",
    ])
  })

  it('suggests for names as long as tool names get suggestions for, and none past that', () => {
    const long = 'a'.repeat(MAX_SUGGESTED_NAME_CHARS - 1)
    const schema = {type: 'object', properties: {[`${long}x`]: {type: 'string'}}}
    expect(prepareArguments(schema, {[`${long}y`]: '.'}).problems[0]).toMatch(/; did you mean 'a+x'\?$/)
    expect(prepareArguments(schema, {[`${long}yz`]: '.'}).problems[0]).toMatch(/; accepted: a+x$/)
  })

  it('matches wrong names one to one, and lists the required ones still missing', () => {
    const sum = {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']}
    expect(prepareArguments(sum, {x: 1, y: 2}).problems).toEqual([
      "unexpected argument 'x'; did you mean 'a'?",
      "unexpected argument 'y'; did you mean 'b'?",
    ])
    expect(prepareArguments(listing, {sort_by: 'size'}).problems).toEqual([
      "unexpected argument 'sort_by'; did you mean 'sortBy'?",
      "missing required argument 'path'",
    ])
  })

  it('lets extras through when the schema allows them explicitly, or says nothing about names', () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        {...listing, additionalProperties: true},
        {path: '.', sort_by: 'size'},
      ],
      [
        {...listing, additionalProperties: {type: 'string'}},
        {path: '.', sort_by: 'size'},
      ],
      [{type: 'object'}, {anything: 1}],
      [
        {type: 'object', patternProperties: {'^x-': {}}, properties: {a: {}}},
        {a: 1, 'x-trace': 'v'},
      ],
    ]
    for (const [schema, args] of cases) {
      expect(prepareArguments(schema, args).problems, JSON.stringify(schema)).toEqual([])
    }
  })

  it('finds properties declared in allOf / anyOf branches and through local $refs', () => {
    const schema = {
      $defs: {Base: {type: 'object', properties: {id: {type: 'string'}}}},
      allOf: [{$ref: '#/$defs/Base'}],
      anyOf: [{properties: {name: {type: 'string'}}}, {properties: {email: {type: 'string'}}}],
    }
    expect(prepareArguments(schema, {id: 'a', email: 'e'}).problems).toEqual([])
    expect(prepareArguments(schema, {idd: 'a'}).problems).toEqual([
      "unexpected argument 'idd'; did you mean 'id'?",
    ])
  })

  it('leaves out optional arguments passed as None, unless their schema accepts null', () => {
    const schema = {
      type: 'object',
      properties: {
        path: {type: 'string'},
        head: {type: 'number'},
        cursor: {type: ['string', 'null']},
        tag: {anyOf: [{type: 'string'}, {type: 'null'}]},
      },
      required: ['path'],
    }
    const args = {path: null, head: null, cursor: null, tag: null}
    const prepared = prepareArguments(schema, args)
    expect(prepared.args).toEqual({path: null, cursor: null, tag: null})
    expect(args).toHaveProperty('head', null)
    const untouched = {path: 'a', head: 3}
    expect(prepareArguments(schema, untouched).args).toBe(untouched)
  })

  it('quotes a huge unexpected name briefly and suggests nothing for it', () => {
    const [problem] = prepareArguments(listing, {['p'.repeat(100_000)]: 1}).problems
    expect(problem!.length).toBeLessThan(200)
    expect(problem).toMatch(/^unexpected argument 'p+…'; accepted: /)
  })

  it('matches names against patternProperties in linear time: ^(a+)+$ cannot stall on "a"*200+"!"', () => {
    // With a backtracking RegExp this key takes longer than the age of the universe.
    const schema = {type: 'object', properties: {a: {}}, patternProperties: {'^(a+)+$': {type: 'number'}}}
    expect(prepareArguments(schema, {[`${'a'.repeat(200)}!`]: 1}).problems).toEqual([
      expect.stringMatching(/^unexpected argument 'a+…'; accepted: a$/),
    ])
    expect(prepareArguments(schema, {aaa: 1}).problems).toEqual([])
  })

  it('leaves a name a pattern might match to validation when the pattern cannot run in linear time', () => {
    const schema = {type: 'object', properties: {a: {}}, patternProperties: {'^(?=x)': {}}}
    expect(prepareArguments(schema, {xy: 1}).problems).toEqual([])
  })
})
