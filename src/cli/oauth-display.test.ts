// @tier unit
import {describe, expect, it} from 'vitest'

import {formatSignIn, formatSignOut} from './oauth-display.js'

describe('formatSignIn', () => {
  const result = {
    server: 'issues',
    url: 'https://x.example/mcp',
    expires: '2026-12-01T10:00:00.000Z',
    scopes: ['tools'],
    path: '/state/x.json',
  }

  it('promises an automatic refresh only when a refresh token was issued', () => {
    expect(formatSignIn({...result, refreshable: true})).toContain(
      'the access token expires 2026-12-01T10:00:00.000Z and is refreshed automatically',
    )
    const once = formatSignIn({...result, refreshable: false})
    expect(once).not.toContain('refreshed automatically')
    expect(once).toContain(
      'cannot be refreshed (no refresh token was issued): run "ptc-mcp auth issues" again then',
    )
  })
})

describe('formatSignOut', () => {
  it("says why revocation failed, in the server's words", () => {
    expect(
      formatSignOut({
        server: 'issues',
        revocation: 'failed',
        detail: 'the revocation endpoint answered HTTP 401: invalid_client: client secret required',
        deleted: true,
      }),
    ).toBe(
      'Signed out of "issues": revocation failed (the revocation endpoint answered HTTP 401: invalid_client: client secret required); local tokens deleted.',
    )
  })
})
