// @tier unit
import {describe, expect, it} from 'vitest'

import {parseConfigText} from './load.js'

describe('permissions.ask_destructive (replaced by ask_unlisted)', () => {
  it('is accepted with a warning saying how it is read', () => {
    expect(parseConfigText('permissions: {ask_destructive: false}').warnings).toEqual([
      'permissions.ask_destructive is replaced by permissions.ask_unlisted (read as ask_unlisted: false); rename it in the config',
    ])
    expect(parseConfigText('permissions: {ask_destructive: true}').warnings[0]).toContain(
      'read as ask_unlisted: destructive',
    )
    expect(parseConfigText('permissions: {ask_destructive: true, ask_unlisted: true}').warnings[0]).toContain(
      'ignored: ask_unlisted is set',
    )
    expect(parseConfigText('permissions: {ask_unlisted: destructive}').warnings).toEqual([])
  })
})
