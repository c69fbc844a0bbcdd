// @tier unit
import {describe, expect, it} from 'vitest'

import type {RemoteServerConfig} from '../config/schema.js'

import {describeState, describeStateLine} from './status.js'

const server: RemoteServerConfig = {
  name: 'issues',
  transport: 'http',
  url: 'https://a.example/mcp',
  headers: {},
  oauth: {},
}
const record = (tokens: Record<string, unknown> | undefined, obtained = 0) => ({
  version: 1 as const,
  server_url: server.url,
  ...(tokens
    ? {tokens: {token_type: 'Bearer', access_token: 'secret-access', ...tokens}, obtained_at: obtained}
    : {}),
})

describe('describeState', () => {
  it('needs sign-in without tokens, and says how', () => {
    const state = describeState(server)
    expect(state).toMatchObject({state: 'needs-sign-in', fix: 'run `ptc-mcp auth issues`', expires: null})
    expect(describeStateLine(state)).toBe('needs sign-in: run `ptc-mcp auth issues`')
  })

  it('is signed in with a token that expires later, or that has a refresh token', () => {
    expect(describeState(server, record({expires_in: 60, scope: 'a b'}, 0), 1000)).toMatchObject({
      state: 'signed-in',
      expires: new Date(60_000).toISOString(),
      scopes: ['a', 'b'],
      refreshable: false,
    })
    const refreshable = describeState(
      server,
      record({expires_in: 60, refresh_token: 'secret-refresh'}, 0),
      120_000,
    )
    expect(refreshable).toMatchObject({state: 'signed-in', refreshable: true})
    expect(describeStateLine(refreshable)).toBe(
      `signed in, expires ${new Date(60_000).toISOString()} (refreshed automatically)`,
    )
  })

  it('is expired past expiry without a refresh token', () => {
    expect(describeState(server, record({expires_in: 60}, 0), 120_000)).toMatchObject({
      state: 'expired',
      fix: 'run `ptc-mcp auth issues`',
    })
  })

  it('never carries a token', () => {
    const text = JSON.stringify(
      describeState(server, record({expires_in: 60, refresh_token: 'secret-refresh'})),
    )
    expect(text).not.toMatch(/secret-/)
  })
})
