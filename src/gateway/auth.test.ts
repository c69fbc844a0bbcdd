// @tier unit
import {describe, expect, it} from 'vitest'

import {BearerAuth, GatewayAuth, isLoopbackHost} from './auth.js'

const env = {ALICE: 'alice-0123456789abcdef', BOB: 'bob-0123456789abcdef00', SHORT: 'short'}
const auth = BearerAuth.fromConfig(
  {
    bearer: [
      {principal: 'alice', token: '${ALICE}'},
      {principal: 'bob', token: '${BOB}'},
    ],
  },
  env,
)

describe('BearerAuth', () => {
  it('names the principal of a token, and nobody for a wrong, missing or malformed one', () => {
    expect(auth.configured).toBe(true)
    expect(auth.principalOf(`Bearer ${env.ALICE}`)).toBe('alice')
    expect(auth.principalOf(`bearer ${env.BOB}`)).toBe('bob')
    expect(auth.principalOf(`Bearer ${env.ALICE}x`)).toBeUndefined()
    expect(auth.principalOf(`Basic ${env.ALICE}`)).toBeUndefined()
    expect(auth.principalOf(env.ALICE)).toBeUndefined()
    expect(auth.principalOf()).toBeUndefined()
    expect(auth.principalOf('Bearer ')).toBeUndefined()
  })

  it('refuses an unset variable, a short token and a shared one, never showing a value', () => {
    const from = (bearer: Array<{principal: string; token: string}>) => () =>
      BearerAuth.fromConfig({bearer}, env)
    expect(from([{principal: 'carol', token: '${CAROL}'}])).toThrow(/CAROL is not set/)
    expect(from([{principal: 'dan', token: '${SHORT}'}])).toThrow(/shorter than 16 characters/)
    expect(
      from([
        {principal: 'a', token: '${ALICE}'},
        {principal: 'b', token: '${ALICE}'},
      ]),
    ).toThrow(/same token is given to another principal/)
    expect(BearerAuth.fromConfig({bearer: []}, env).configured).toBe(false)
  })

  it('answers 401 with WWW-Authenticate, saying whether a token was presented', async () => {
    const gateway = GatewayAuth.fromConfig({bearer: [{principal: 'alice', token: '${ALICE}'}]}, env)
    expect(await gateway.authenticate(`Bearer ${env.ALICE}`)).toEqual({principal: 'alice'})
    const none = await gateway.authenticate()
    expect(none).toEqual({})
    const missing = gateway.refuse(none)
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="ptc-mcp"')
    const wrong = gateway.refuse(await gateway.authenticate(`Bearer ${env.BOB}`))
    expect(wrong.headers.get('www-authenticate')).toBe(
      'Bearer realm="ptc-mcp", error="invalid_token", error_description="the bearer token is not one of gateway.auth.bearer"',
    )
    expect(await wrong.text()).toContain('nothing ran')
    const basic = await gateway.authenticate(`Basic ${env.ALICE}`)
    expect(basic).toEqual({refused: 'the Authorization header is not "Bearer <token>"'})
    expect(gateway.refuse(basic).headers.get('www-authenticate')).toContain(
      `error_description="the Authorization header is not 'Bearer <token>'"`,
    )
  })

  it('tells loopback hosts from the rest', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1'].every(isLoopbackHost)).toBe(true)
    expect(['0.0.0.0', '10.0.0.1', '::', 'example.com'].some(isLoopbackHost)).toBe(false)
  })
})
