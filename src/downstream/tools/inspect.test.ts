import {describe, expect, it} from 'vitest'

import type {ToolInfo} from '../types.js'

import {MAX_SUGGESTED_NAME_CHARS} from '../../shared/limits.js'
import {suggestNames} from '../../shared/naming.js'
import {describeTool, InspectError, inspectTools, NO_OUTPUT_SCHEMA_NOTE, OBSERVED_NOTE} from './inspect.js'
import {unknownToolMessage} from './tool-lookup.js'

const QUERY: ToolInfo = {
  name: 'mcp__fin__query',
  server: 'fin',
  tool: 'query',
  description: 'Financial rows.',
  inputSchema: {type: 'object', properties: {ticker: {type: 'string'}}, required: ['ticker']},
}

describe('describeTool', () => {
  it('gives null outputSchema and a note when the server declares none', () => {
    const described = describeTool(QUERY)
    expect(described).toEqual({
      name: 'mcp__fin__query',
      description: 'Financial rows.',
      inputSchema: QUERY.inputSchema,
      outputSchema: null,
      note: NO_OUTPUT_SCHEMA_NOTE,
      signature: expect.stringMatching(/^await mcp__fin__query\(\*, ticker: str\)/),
      server: 'fin',
      original_name: 'query',
    })
    expect(Object.keys(described)).toEqual([
      'name',
      'description',
      'inputSchema',
      'outputSchema',
      'note',
      'signature',
      'server',
      'original_name',
    ])
  })

  it('shows the observed shape, and the signature returns what was seen', () => {
    const described = describeTool(QUERY, ['list of 3', {date: 'str', close: 'float'}])
    expect(described.observed_result).toEqual(['list of 3', {date: 'str', close: 'float'}])
    expect(described.signature).toMatch(/-> list\[\{"date": str, "close": float\}\]$/)
    expect(described.note).toBe(OBSERVED_NOTE)
    expect(describeTool(QUERY, 'free text, 4 lines').signature).toMatch(/-> str$/)
  })

  it('includes a declared outputSchema and no note', () => {
    const outputSchema = {type: 'object', properties: {rows: {type: 'array'}}}
    const described = describeTool({...QUERY, outputSchema})
    expect(described.outputSchema).toBe(outputSchema)
    expect(described).not.toHaveProperty('note')
  })
})

describe('inspectTools (inspect_tool with tool_names and brief)', () => {
  const tools: ToolInfo[] = [
    QUERY,
    {...QUERY, name: 'mcp__fin__quote', tool: 'quote', description: 'Latest quote.\nDetails.'},
    {...QUERY, name: 'mcp__web__search', server: 'web', tool: 'search'},
  ]
  const source = {
    listTools: () => tools,
    getTool: (name: string) => tools.find((t) => t.name === name),
    observedResult: (name: string) => (name === 'mcp__fin__quote' ? {price: 'float'} : undefined),
  }

  it('inspects several names and globs in one call, briefly when asked', () => {
    const brief = inspectTools(source, {tool_names: 'mcp__fin__*', brief: true})
    expect(brief).toEqual([
      {
        name: 'mcp__fin__query',
        signature: 'await mcp__fin__query(*, ticker: str) -> Any',
        description: 'Financial rows.',
      },
      {
        name: 'mcp__fin__quote',
        signature: 'await mcp__fin__quote(*, ticker: str) -> {"price": float}',
        description: 'Latest quote.',
      },
    ])
    const full = inspectTools(source, {tool_names: ['mcp__web__search', 'mcp__fin__qoute']}) as {
      name: string
    }[]
    expect(full[0]).toMatchObject({name: 'mcp__web__search', original_name: 'search', server: 'web'})
    expect(full[1]).toEqual({
      name: 'mcp__fin__qoute',
      error: expect.stringMatching(/Did you mean mcp__fin__quote/),
    })
  })

  it("normalises names and globs as tools.allow does: the server's own spelling finds its tools", () => {
    const dashed = [{...QUERY, name: 'mcp__my_srv__get_x', server: 'my-srv', tool: 'get-x'}]
    const dashedSource = {
      listTools: () => dashed,
      getTool: (name: string) => dashed.find((t) => t.name === name),
    }
    expect(inspectTools(dashedSource, {tool_names: 'mcp__my-srv__*', brief: true})).toEqual([
      expect.objectContaining({name: 'mcp__my_srv__get_x'}),
    ])
    expect(inspectTools(dashedSource, {tool_name: 'mcp__my-srv__get-x'})).toMatchObject({
      name: 'mcp__my_srv__get_x',
    })
  })

  it('refuses a request naming nothing, or naming only unknown tools', () => {
    expect(() => inspectTools(source, {})).toThrow(InspectError)
    expect(() => inspectTools(source, {tool_names: ['mcp__x__*']})).toThrow("no tool matches 'mcp__x__*'")
    expect(() => inspectTools(source, {tool_name: 'mcp__fin__qery'})).toThrow(/Did you mean mcp__fin__query/)
  })
})

describe('unknown tool names of any length (SPEC §15)', () => {
  const names = ['mcp__fin__query', 'mcp__fin__quote']

  it('a name longer than any real one gets no suggestions, and the error repeats only its head', () => {
    const long = `mcp__fin__${'q'.repeat(MAX_SUGGESTED_NAME_CHARS)}`
    expect(suggestNames(long, names)).toEqual([])
    // Under the bound it is still compared.
    expect(suggestNames(`mcp__fin__query${'y'.repeat(10)}`, names)).toEqual(['mcp__fin__query'])
    const huge = 'q'.repeat(16_000_000)
    expect(unknownToolMessage(huge, names)).toBe(
      `Unknown tool '${'q'.repeat(MAX_SUGGESTED_NAME_CHARS)}…' (16000000 characters), and no tool has a similar name; list_callable_tools() shows the 2 available tools.`,
    )
  })
})
