// @tier unit
import {describe, expect, it} from 'vitest'

import {permissionsSchema} from '../config/schema.js'
import {silentLogger} from '../shared/log.js'
import {MAX_ALLOWANCE_SCOPES, PermissionPolicy} from './policy.js'

const writer = {name: 'mcp__fs__write_file'}

function policy(): PermissionPolicy {
  return new PermissionPolicy(permissionsSchema.parse({claude_code: false}), {
    home: '/nonexistent',
    projectDir: '/nonexistent',
    logger: silentLogger,
  })
}

describe('"allow for the rest of this session" per scope (the gateway\'s principals, SPEC §18)', () => {
  it("holds for the scope that answered only; the one user's scope is the default", () => {
    const rules = policy()
    rules.allowForSession(writer, 'alice')
    expect(rules.allowedForSession(writer, 'alice')).toBe(true)
    expect(rules.allowedForSession(writer, 'bob')).toBe(false)
    expect(rules.allowedForSession(writer)).toBe(false)
    rules.allowForSession(writer)
    expect(rules.allowedForSession(writer)).toBe(true)
    expect(rules.allowedForSession(writer, 'bob')).toBe(false)
  })

  it('keeps at most MAX_ALLOWANCE_SCOPES scopes, forgetting the one answered longest ago', () => {
    const rules = policy()
    rules.allowForSession(writer, 'first')
    rules.allowForSession(writer, 'second')
    for (let i = 0; i < MAX_ALLOWANCE_SCOPES - 2; i++) rules.allowForSession(writer, `p${i}`)
    // 'first' answers again: it is the newest now, and 'second' is the oldest.
    rules.allowForSession({name: 'mcp__fs__move_file'}, 'first')
    rules.allowForSession(writer, 'one more')
    expect(rules.allowedForSession(writer, 'second')).toBe(false)
    expect(rules.allowedForSession(writer, 'first')).toBe(true)
    expect(rules.allowedForSession(writer, 'one more')).toBe(true)
  })
})
