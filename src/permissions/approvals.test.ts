// @tier unit
import {describe, expect, it} from 'vitest'

import type {ToolInfo} from '../downstream/types.js'

import {howToAllow, shortJson} from './approvals.js'

const tool = (name: string): ToolInfo => ({
  name: `mcp__fx__${name}`,
  server: 'fx',
  tool: name,
  description: '',
  inputSchema: {type: 'object'},
})

describe('approval texts', () => {
  it("the advice fits the config in force: Claude Code's settings only when ptc-mcp reads them", () => {
    const unlisted = {source: 'unlisted'} as const
    expect(howToAllow(tool('write'), unlisted, false)).toBe(
      `to run it without asking, add "mcp__fx__write" to permissions.allow in ptc-mcp's config`,
    )
    expect(howToAllow(tool('write'), unlisted, true)).toContain("Claude Code's .claude/settings.json")
  })

  it('shortens what it shows', () => {
    expect(shortJson({a: 'x'.repeat(1000)})).toHaveLength(600)
    expect(shortJson({a: 1})).toBe('{"a":1}')
  })

  it('escapes what a terminal or prompt would obey instead of showing: bidi overrides, C1 controls', () => {
    const args = {path: '/tmp/\u202Egnp.exe', note: 'a\u009B2Jb\u2028c\u2066d'}
    const shown = shortJson(args)
    expect(shown).not.toMatch(/[\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/)
    expect(shown).toContain(String.raw`/tmp/\u202egnp.exe`)
    expect(JSON.parse(shown)).toEqual(args)
  })

  it('shows every short argument of a long call, whatever the order the program passed them in', () => {
    const shown = shortJson({content: 'x'.repeat(5000), path: '/home/u/.ssh/authorized_keys'})
    expect(shown.length).toBeLessThanOrEqual(600)
    expect(shown).toContain('"path":"/home/u/.ssh/authorized_keys"')
  })
})
