import {describe, expect, it} from 'vitest'

import {createToolFilter} from './filter.js'

const TOOLS = ['mcp__fin__query', 'mcp__fin__quote', 'mcp__fin__delete_all', 'mcp__web__search']

function kept(tools: {allow?: string[]; block?: string[]}): string[] {
  return TOOLS.filter(createToolFilter(tools))
}

describe('createToolFilter', () => {
  it('lets everything through without allow or block', () => {
    expect(kept({})).toEqual(TOOLS)
    expect(TOOLS.filter(createToolFilter())).toEqual(TOOLS)
  })

  it('keeps only tools matching an allow name or glob', () => {
    expect(kept({allow: ['mcp__fin__*']})).toEqual([
      'mcp__fin__query',
      'mcp__fin__quote',
      'mcp__fin__delete_all',
    ])
    expect(kept({allow: ['mcp__web__search', 'mcp__fin__qu?r*']})).toEqual([
      'mcp__fin__query',
      'mcp__web__search',
    ])
    expect(kept({allow: []})).toEqual([])
  })

  it('hides tools matching a block name or glob', () => {
    expect(kept({block: ['mcp__fin__delete_*']})).toEqual([
      'mcp__fin__query',
      'mcp__fin__quote',
      'mcp__web__search',
    ])
    expect(kept({block: ['mcp__*__search', 'mcp__fin__quote']})).toEqual([
      'mcp__fin__query',
      'mcp__fin__delete_all',
    ])
  })

  it('supports brace and class globs', () => {
    expect(kept({allow: ['mcp__fin__{query,quote}']})).toEqual(['mcp__fin__query', 'mcp__fin__quote'])
    expect(kept({block: ['mcp__[fw]*__*']})).toEqual([])
  })

  it('matches whole names only', () => {
    expect(kept({allow: ['mcp__fin__q']})).toEqual([])
    expect(kept({allow: ['fin']})).toEqual([])
  })
})
