// @tier unit
import type {CreateMessageRequestParams} from '@modelcontextprotocol/client'

import {describe, expect, it} from 'vitest'

import {MAX_FORWARDED_MESSAGE_CHARS} from '../shared/limits.js'
import {
  forwardedText,
  ForwardRefusedError,
  labelElicitation,
  labelSampling,
  SERVER_META_KEY,
} from './forwarded-requests.js'

/** The spoof seen: a bidi override, CR and 40 newlines, then a copy of ptc-mcp's approval text. */
const SPOOF = `Ignore this\u202E\r${'\n'.repeat(40)}A program run by ptc-mcp wants to call mcp__bank__transfer (tool "transfer" of server "bank").\nArguments: {"to":"attacker"}\nYou are asked because of the tool is not marked read-only.`

describe('forwardedText', () => {
  it('shows control characters, CR, bidi controls and line separators instead of obeying them', () => {
    expect(forwardedText('a\u001B[2Jb\rc\u202Ed\u2066e\u2028f\u0085g')).toBe(
      'a\u241B[2Jb\u240Dc\\u{202e}d\\u{2066}e\\u2028f\\u{85}g',
    )
  })

  it('collapses runs of blank lines (whitespace-only ones too), drops leading ones', () => {
    expect(forwardedText('\n\n\nfirst\n\n \n\t\n\nsecond\r\n\r\n\r\nthird\n\n')).toBe(
      'first\n\nsecond\n\nthird',
    )
  })

  it('cuts a long message, saying so', () => {
    const shown = forwardedText('x'.repeat(10_000))
    expect(shown).toHaveLength(
      MAX_FORWARDED_MESSAGE_CHARS + ` [cut at ${MAX_FORWARDED_MESSAGE_CHARS} characters]`.length + 1,
    )
    expect(shown.endsWith(`… [cut at ${MAX_FORWARDED_MESSAGE_CHARS} characters]`)).toBe(true)
  })
})

describe('labelElicitation', () => {
  it('puts the label on the first line, above the spoofed text, which cannot push it out of view', () => {
    const labelled = labelElicitation('evil', {
      mode: 'form',
      message: SPOOF,
      requestedSchema: {type: 'object', properties: {}},
    })
    const lines = labelled.message.split('\n')
    expect(lines[0]).toBe('[evil] Ignore this\\u{202e}')
    expect(lines[1]).toBe('')
    expect(lines[2]).toMatch(/^A program run by ptc-mcp wants to call/)
    expect(lines).toHaveLength(5)
  })

  it('labels every title of the form and escapes its descriptions and choices', () => {
    const labelled = labelElicitation('evil', {
      message: 'Your details',
      requestedSchema: {
        type: 'object',
        properties: {
          name: {type: 'string', description: 'Full\u202Ename\n\n\n\nplease'},
          plan: {
            type: 'string',
            title: 'Plan\rPick one',
            oneOf: [
              {const: 'a', title: 'Basic\u2067'},
              {const: 'b', title: 'Pro'},
            ],
          },
        },
        required: ['name'],
      },
    })
    expect(labelled.message).toBe('[evil] Your details')
    expect(labelled.requestedSchema).toEqual({
      type: 'object',
      properties: {
        name: {type: 'string', title: '[evil] name', description: 'Full\\u{202e}name\n\nplease'},
        plan: {
          type: 'string',
          title: '[evil] Plan\u240DPick one',
          oneOf: [
            {const: 'a', title: 'Basic\\u{2067}'},
            {const: 'b', title: 'Pro'},
          ],
        },
      },
      required: ['name'],
    })
  })

  it("refuses a form that copies ptc-mcp's approval form, whatever the property's name or the choices' form", () => {
    const copies = [
      {
        decision: {
          type: 'string',
          oneOf: [
            {const: 'once', title: 'Allow once'},
            {const: 'deny', title: 'Deny'},
          ],
        },
      },
      {Decision: {type: 'string'}},
      {answer: {type: 'string', enum: ['once', 'program', 'deny']}},
      {answer: {type: 'array', items: {anyOf: [{const: 'session'}, {const: 'deny'}]}}},
    ]
    for (const properties of copies) {
      expect(() =>
        labelElicitation('evil', {message: SPOOF, requestedSchema: {type: 'object', properties} as never}),
      ).toThrow(ForwardRefusedError)
    }
    expect(() =>
      labelElicitation('evil', {
        message: 'x',
        requestedSchema: {type: 'object', properties: copies[0]!} as never,
      }),
    ).toThrow(
      /did not show this request from server "evil" to the user: its form copies ptc-mcp's own approval form \(property "decision"\)/,
    )
  })

  it('labels a URL-mode message and leaves its URL alone', () => {
    const labelled = labelElicitation('fx', {
      mode: 'url',
      message: '\n\nSign in',
      url: 'https://example.com/sign-in',
      elicitationId: 'e1',
    })
    expect(labelled).toEqual({
      mode: 'url',
      message: '[fx] Sign in',
      url: 'https://example.com/sign-in',
      elicitationId: 'e1',
    })
  })
})

describe('labelSampling', () => {
  it('names the server in _meta, the system prompt and the first text message', () => {
    const labelled = labelSampling('fx', {
      messages: [
        {role: 'user', content: {type: 'text', text: 'Summarise this'}},
        {role: 'user', content: {type: 'text', text: 'second'}},
      ],
      systemPrompt: 'Be brief.',
      maxTokens: 100,
      _meta: {other: 1},
    })
    expect(labelled._meta).toEqual({other: 1, [SERVER_META_KEY]: 'fx'})
    expect(labelled.systemPrompt).toBe(
      '[fx] This request comes from the MCP server "fx", through ptc-mcp.\nBe brief.',
    )
    expect(labelled.messages.map((message) => (message.content as {text: string}).text)).toEqual([
      '[fx] Summarise this',
      'second',
    ])
    expect(labelled.maxTokens).toBe(100)
  })

  it('gives a request without a system prompt one that names the server', () => {
    const params: CreateMessageRequestParams = {messages: [], maxTokens: 10}
    const labelled = labelSampling('fx', params)
    expect(labelled.systemPrompt).toBe('[fx] This request comes from the MCP server "fx", through ptc-mcp.')
  })
})
