// @tier unit
import {describe, expect, it} from 'vitest'

import {permissionsSchema} from './schema.js'

describe('permissions.max_question_rounds', () => {
  it('is 8 by default, below the 10 rounds after which Claude Code ends a call', () => {
    expect(permissionsSchema.parse({}).max_question_rounds).toBe(8)
  })

  it('must be a whole number of at least 1', () => {
    for (const bad of [0, -1, 2.5, 'eight']) {
      const parsed = permissionsSchema.safeParse({max_question_rounds: bad})
      expect(parsed.success, String(bad)).toBe(false)
      expect(parsed.error?.issues[0]?.path).toEqual(['max_question_rounds'])
    }
    expect(permissionsSchema.parse({max_question_rounds: 1}).max_question_rounds).toBe(1)
  })
})
