// @tier unit
import {describe, expect, it} from 'vitest'

import {
  dedupeTools,
  levenshtein,
  namespacedName,
  normaliseName,
  normalisePattern,
  suggestNames,
} from './naming.js'

describe('namespacedName', () => {
  it('replaces every character outside [A-Za-z0-9_] by _', () => {
    expect(namespacedName('my-cool-server', 'get-data-now')).toBe('mcp__my_cool_server__get_data_now')
    expect(namespacedName('fin', 'quote.v2/latest now')).toBe('mcp__fin__quote_v2_latest_now')
  })

  it('keeps letters, digits and underscores as they are', () => {
    expect(namespacedName('Fin_2', 'Get_Quote9')).toBe('mcp__Fin_2__Get_Quote9')
  })

  it('replaces one non-ASCII code point by one _, as Python does', () => {
    expect(normaliseName('café')).toBe('caf_')
    expect(normaliseName('a😀b')).toBe('a_b')
  })
})

describe('dedupeTools', () => {
  it('keeps the first of two tools that normalise to the same name and reports the clash', () => {
    const tools = [{name: 'get-data'}, {name: 'list'}, {name: 'get_data'}, {name: 'get.data'}]
    const {kept, clashes} = dedupeTools('srv', tools)
    expect(kept).toEqual([
      {name: 'mcp__srv__get_data', tool: tools[0]},
      {name: 'mcp__srv__list', tool: tools[1]},
    ])
    expect(clashes).toEqual([{name: 'mcp__srv__get_data', tools: ['get-data', 'get_data', 'get.data']}])
  })

  it('reports no clash when names stay distinct', () => {
    expect(dedupeTools('s', [{name: 'a'}, {name: 'b'}]).clashes).toEqual([])
  })
})

describe('suggestNames', () => {
  const names = [
    'mcp__fin__get_quote',
    'mcp__fin__get_quotes_history',
    'mcp__fin__list_tickers',
    'mcp__weather__forecast',
    'mcp__news__search',
  ]

  it('suggests the closest names for a typo, best first', () => {
    expect(suggestNames('mcp__fin__get_qoute', names)).toEqual([
      'mcp__fin__get_quote',
      'mcp__fin__get_quotes_history',
    ])
  })

  it('finds the tool under another server when the server part is wrong', () => {
    expect(suggestNames('mcp__weathr__forecast', names)[0]).toBe('mcp__weather__forecast')
    expect(suggestNames('mcp__finance__search', names)).toEqual(['mcp__news__search'])
  })

  it('accepts a bare tool name, ignoring case and - versus _', () => {
    expect(suggestNames('List-Tickers', names)).toEqual(['mcp__fin__list_tickers'])
  })

  it('counts a substring of the tool part as close', () => {
    expect(suggestNames('mcp__fin__history', names)).toEqual(['mcp__fin__get_quotes_history'])
  })

  it('suggests nothing for an unrelated name', () => {
    expect(suggestNames('mcp__x__completely_unrelated', names)).toEqual([])
  })

  it('returns at most max names', () => {
    const many = ['mcp__a__tool1', 'mcp__a__tool2', 'mcp__a__tool3', 'mcp__a__tool4']
    expect(suggestNames('mcp__a__tool', many)).toHaveLength(3)
    expect(suggestNames('mcp__a__tool', many, 2)).toHaveLength(2)
  })
})

describe('levenshtein', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3)
    expect(levenshtein('', 'abc')).toBe(3)
    expect(levenshtein('abc', 'abc')).toBe(0)
  })
})

describe('normalisePattern', () => {
  it('normalises like names: every character outside [A-Za-z0-9_] becomes one "_"', () => {
    expect(normalisePattern('mcp__my-srv__get-x')).toBe('mcp__my_srv__get_x')
    expect(normalisePattern('mcp__my_srv__get_x')).toBe('mcp__my_srv__get_x')
    expect(normalisePattern('mcp__fs__files/read.v2')).toBe('mcp__fs__files_read_v2')
    expect(normalisePattern('mcp__x__caf\u00E9😀')).toBe(namespacedName('x', 'caf\u00E9😀'))
    expect(normalisePattern('mcp__x__c++')).toBe('mcp__x__c__')
  })

  it('keeps glob syntax: stars, ?, classes verbatim, braces, extglobs, a leading !', () => {
    expect(normalisePattern('mcp__my-srv__*')).toBe('mcp__my_srv__*')
    expect(normalisePattern('mcp__a-b__get?x')).toBe('mcp__a_b__get?x')
    expect(normalisePattern('mcp__[a-c]-x__*')).toBe('mcp__[a-c]_x__*')
    expect(normalisePattern('mcp__s__{get-a,put-b}')).toBe('mcp__s__{get_a,put_b}')
    expect(normalisePattern('mcp__s__+(get-a|put-b)')).toBe('mcp__s__+(get_a|put_b)')
    expect(normalisePattern('!mcp__s-1__*')).toBe('!mcp__s_1__*')
  })

  it('turns unbalanced syntax and escapes into literal characters, normalised', () => {
    expect(normalisePattern('mcp__s__a[b')).toBe('mcp__s__a_b')
    expect(normalisePattern('mcp__s__a{b')).toBe('mcp__s__a_b')
    expect(normalisePattern('mcp__s__a,b)')).toBe('mcp__s__a_b_')
    expect(normalisePattern('mcp__s__a\\*b\\x')).toBe('mcp__s__a_bx')
    expect(normalisePattern('mcp__s__a!b')).toBe('mcp__s__a_b')
  })
})
