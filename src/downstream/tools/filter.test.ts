import {describe, expect, it} from 'vitest'

import {ToolFilter} from './filter.js'

const TOOLS = ['mcp__fin__query', 'mcp__fin__quote', 'mcp__fin__delete_all', 'mcp__web__search']

function kept(tools: {allow?: string[]; block?: string[]}, names = TOOLS): string[] {
  const filter = new ToolFilter(tools)
  return names.filter((name) => filter.permits(name))
}

describe('ToolFilter', () => {
  it('lets everything through without allow or block', () => {
    expect(kept({})).toEqual(TOOLS)
    const filter = new ToolFilter()
    expect(TOOLS.filter((name) => filter.permits(name))).toEqual(TOOLS)
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

  it("normalises patterns as names are: the server's own spelling blocks the tool", () => {
    const names = [
      'mcp__everything__get_env',
      'mcp__everything__echo',
      'mcp__my_srv__get_x',
      'mcp__fs__files_read',
    ]
    expect(kept({block: ['mcp__everything__get-env']}, names)).toEqual(
      names.filter((n) => !n.endsWith('get_env')),
    )
    expect(kept({block: ['mcp__my-srv__get-x']}, names)).not.toContain('mcp__my_srv__get_x')
    expect(kept({block: ['mcp__my-srv__get_x']}, names)).not.toContain('mcp__my_srv__get_x')
    expect(kept({block: ['mcp__my-srv__*']}, names)).not.toContain('mcp__my_srv__get_x')
    expect(kept({allow: ['mcp__fs__files/read']}, names)).toEqual(['mcp__fs__files_read'])
    expect(kept({allow: ['mcp__everything__{get-env,echo}']}, names)).toEqual([
      'mcp__everything__get_env',
      'mcp__everything__echo',
    ])
  })

  it('says which rule hides a tool, and which rules match nothing', () => {
    const block = new ToolFilter({block: ['mcp__everything__get-env', 'mcp__everything__get-envv']})
    expect(block.hiddenBy('mcp__everything__get_env')).toBe(
      'hidden by tools.block ("mcp__everything__get-env")',
    )
    expect(block.hiddenBy('mcp__everything__echo')).toBeUndefined()
    expect(block.unmatched(['mcp__everything__get_env']).map((r) => r.pattern)).toEqual([
      'mcp__everything__get-envv',
    ])
    const allow = new ToolFilter({allow: ['mcp__fin__*']})
    expect(allow.hiddenBy('mcp__web__search')).toBe('hidden by tools.allow (no pattern matches it)')
    expect(allow.unmatched(TOOLS)).toEqual([])
  })
})
