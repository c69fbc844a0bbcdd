// @tier unit
import {describe, expect, it} from 'vitest'

import {namespacedName} from '../shared/naming.js'
import {type ClaudeRule, globMatches, parseClaudeRule, ruleMatches} from './claude-rules.js'

/** Tools as ptc-mcp names them (server, tool), for the rule table. */
const NAMES = [
  ['filesystem', 'write_file'],
  ['filesystem', 'move_file'],
  ['filesystem', 'create_directory'],
  ['filesystem', 'read_file'],
  ['github', 'get_issue'],
  ['github', 'get_pull_request'],
  ['github', 'create_issue'],
  ['my-srv', 'get-data'],
  ['puppeteer', 'navigate'],
  ['a__b', 'c'],
] as const

type Row = [list: 'allow' | 'ask' | 'deny', rule: string, matched: string[] | 'rejected' | 'not mcp']

/**
 * Rules from Claude Code's documentation and its validator's messages ("Deny and ask rules accept
 * wildcards anywhere"; "globs are permitted only in the tool position after a literal
 * mcp__<server>__ prefix", examples mcp__puppeteer__* and mcp__github__get_*), each with the tools
 * it covers in Claude Code 2.1.
 */
const TABLE: Row[] = [
  ['deny', 'mcp__filesystem__write_file', ['mcp__filesystem__write_file']],
  [
    'deny',
    'mcp__filesystem',
    [
      'mcp__filesystem__write_file',
      'mcp__filesystem__move_file',
      'mcp__filesystem__create_directory',
      'mcp__filesystem__read_file',
    ],
  ],
  ['allow', 'mcp__puppeteer__*', ['mcp__puppeteer__navigate']],
  ['allow', 'mcp__puppeteer', ['mcp__puppeteer__navigate']],
  ['allow', 'mcp__github__get_*', ['mcp__github__get_issue', 'mcp__github__get_pull_request']],
  ['deny', 'mcp__filesystem__write_*', ['mcp__filesystem__write_file']],
  ['deny', 'mcp__*__move_file', ['mcp__filesystem__move_file']],
  ['ask', 'mcp__filesystem__create_*', ['mcp__filesystem__create_directory']],
  ['ask', 'mcp__*__create_*', ['mcp__filesystem__create_directory', 'mcp__github__create_issue']],
  ['deny', 'mcp__*', NAMES.map(([server, tool]) => namespacedName(server, tool))],
  [
    'ask',
    'mcp__*_file',
    ['mcp__filesystem__write_file', 'mcp__filesystem__move_file', 'mcp__filesystem__read_file'],
  ],
  [
    'deny',
    'mcp__git*',
    ['mcp__github__get_issue', 'mcp__github__get_pull_request', 'mcp__github__create_issue'],
  ],
  ['deny', 'mcp__*hub__get_issue', ['mcp__github__get_issue']],
  ['deny', 'mcp__github__*_issue', ['mcp__github__get_issue', 'mcp__github__create_issue']],
  ['allow', 'mcp__github__*_issue', ['mcp__github__get_issue', 'mcp__github__create_issue']],
  ['deny', '*__read_file', ['mcp__filesystem__read_file']],
  ['deny', 'mcp__my-srv__get-data', ['mcp__my_srv__get_data']],
  ['ask', 'mcp__my-srv__get-*', ['mcp__my_srv__get_data']],
  ['deny', 'mcp__a__b', ['mcp__a__b__c']],
  ['allow', 'mcp__a__b', []],
  ['deny', 'mcp__github__get_issue_extra', []],
  ['deny', 'mcp__filesystem__Write_file', []],
  ['allow', 'mcp__*', 'rejected'],
  ['allow', 'mcp__*__move_file', 'rejected'],
  ['allow', 'mcp__git*', 'rejected'],
  ['allow', 'mcp__git*__get_issue', 'rejected'],
  ['deny', 'mcp__filesystem(write_file)', 'rejected'],
  ['ask', 'mcp__github__get_issue(x)', 'rejected'],
  ['allow', 'Bash(npm test)', 'not mcp'],
  ['deny', 'Read', 'not mcp'],
  ['allow', '*', 'not mcp'],
]

describe("Claude Code's rules, matched as Claude Code matches them", () => {
  it.each(TABLE)('%s %s', (list, rule, expected) => {
    const parsed = parseClaudeRule(rule, list)
    if (expected === 'not mcp') return expect(parsed).toBeUndefined()
    if (expected === 'rejected') return expect(parsed).toHaveProperty('rejected')
    expect(parsed).toBeDefined()
    expect(parsed).not.toHaveProperty('rejected')
    const matched = NAMES.map(([server, tool]) => ({server, name: namespacedName(server, tool)}))
      .filter((target) => ruleMatches(parsed as ClaudeRule, target))
      .map((target) => target.name)
    expect(matched).toEqual(expected)
  })

  it('the table covers 20+ rules of every list', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(20)
    expect(new Set(TABLE.map(([list]) => list))).toEqual(new Set(['allow', 'ask', 'deny']))
  })

  it("Claude Code's glob: * spans any characters, the literal parts in order, nothing else special", () => {
    expect(globMatches('a*b*c', 'a_b_c')).toBe(true)
    expect(globMatches('a*b*c', 'acb')).toBe(false)
    expect(globMatches('ab*ba', 'aba')).toBe(false)
    expect(globMatches('*', '')).toBe(true)
    expect(globMatches('a?c', 'abc')).toBe(false)
    expect(globMatches('a[b]c', 'abc')).toBe(false)
    // No backtracking blow-up: a long name against many stars answers at once.
    expect(globMatches(`${'*a'.repeat(50)}*b`, 'a'.repeat(100_000))).toBe(false)
  })
})
