// @tier unit
import {afterEach, describe, expect, it} from 'vitest'

import {type CallbackServer, listenForCallback} from './callback.js'

let server: CallbackServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
})

const open = async (state = 'the-state') => {
  server = await listenForCallback({port: 0, fixed: false}, state)
  return {server, base: `http://127.0.0.1:${server.port}/callback`}
}

describe('the sign-in callback', () => {
  it('hands over the code (and iss) of the matching state, and tells the browser it worked', async () => {
    const {server: callback, base} = await open()
    const response = await fetch(`${base}?code=abc&state=the-state&iss=https%3A%2F%2Fas.example`)
    expect(response.status).toBe(200)
    expect(await response.text()).toMatch(/Signed in/)
    await expect(callback.wait(5000)).resolves.toEqual({code: 'abc', iss: 'https://as.example'})
  })

  it('ignores a request with another state, and keeps waiting for the right one', async () => {
    const {server: callback, base} = await open()
    const wrong = await fetch(`${base}?code=forged&state=other`)
    expect(wrong.status).toBe(400)
    const waiting = callback.wait(5000)
    await fetch(`${base}?code=real&state=the-state`)
    await expect(waiting).resolves.toEqual({code: 'real'})
  })

  it("fails with the authorization server's reason when it refused", async () => {
    const {server: callback, base} = await open()
    // Caught at once: the rejection comes while the browser's request is still being answered.
    const waiting = callback.wait(5000).catch((error: unknown) => error)
    const response = await fetch(
      `${base}?error=access_denied&error_description=the+user+said+no&state=the-state`,
    )
    expect(response.status).toBe(400)
    expect(await waiting).toMatchObject({
      message: 'The authorization server refused the sign-in: the user said no.',
    })
  })

  it('stops waiting when cancelled, or after the timeout', async () => {
    const {server: callback} = await open()
    const cancel = new AbortController()
    const waiting = callback.wait(60_000, cancel.signal)
    cancel.abort()
    await expect(waiting).rejects.toThrow('Sign-in cancelled.')
    await expect(callback.wait(10)).rejects.toThrow(/No answer from the browser/)
  })

  it('refuses a fixed port that is taken, naming the setting to change', async () => {
    const {server: taken} = await open()
    await expect(listenForCallback({port: taken.port, fixed: true}, 's')).rejects.toThrow(
      /Cannot listen on 127\.0\.0\.1:\d+/,
    )
  })
})
