import {SdkError, SdkErrorCode} from '@modelcontextprotocol/client'
import {describe, expect, it} from 'vitest'

import type {ServerConfig} from '../../config/schema.js'

import {NeedsSignInError} from '../../oauth/errors.js'
import {transportFor} from '../transport/transports.js'
import {connectFailure, GENERIC_FIX, redactFailure} from './failure.js'

const stdio: ServerConfig = {name: 'fin', transport: 'stdio', command: 'fin-server', args: [], env: {}}
const http: ServerConfig = {name: 'web', transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: {}}

function facts(overrides: {echoedInitialize?: boolean; stderr?: string; timedOut?: boolean} = {}) {
  const deadline = new AbortController()
  if (overrides.timedOut) deadline.abort(new Error('no answer within 30s (connect timeout)'))
  return {
    echoedInitialize: overrides.echoedInitialize ?? false,
    deadline: deadline.signal,
    stderr: overrides.stderr,
  }
}

function classify(server: ServerConfig, error: unknown, overrides?: Parameters<typeof facts>[0]) {
  const transport = transportFor(server)
  return connectFailure(error, server, facts(overrides), (e) => transport.failureCause(e))
}

describe('connectFailure: each kind with its message and fix', () => {
  it('classifies a stdio command that is missing, not executable, or exits at start', () => {
    const missing = classify(stdio, Object.assign(new Error('spawn fin-server ENOENT'), {code: 'ENOENT'}))
    expect(missing).toMatchObject({kind: 'command_not_found', message: 'command not found: fin-server'})
    expect(missing.fix).toBe('"fin-server" was not found: use an absolute path, or install it and check PATH')
    const denied = classify(stdio, Object.assign(new Error('spawn fin-server EACCES'), {code: 'EACCES'}))
    expect(denied).toMatchObject({kind: 'not_executable', fix: expect.stringContaining('chmod +x')})
    const crashed = classify(stdio, new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'), {
      stderr: "Error: Cannot find module 'x'",
    })
    expect(crashed).toMatchObject({
      kind: 'exited',
      message: "server process exited during startup; stderr: Error: Cannot find module 'x'",
      stderr: "Error: Cannot find module 'x'",
    })
    expect(crashed.fix).toMatch(/^the server crashed at start \(Error: Cannot find module 'x'\)/)
  })

  it('checks what every transport shares first: not MCP, then the timeout, then a needed sign-in', () => {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')
    expect(classify(stdio, error, {echoedInitialize: true, timedOut: true}).kind).toBe('not_mcp')
    expect(classify(stdio, error, {timedOut: true})).toMatchObject({
      kind: 'timeout',
      message: 'no answer within 30s (connect timeout)',
    })
    const signIn = classify(http, new Error('auth failed', {cause: new NeedsSignInError('web')}), {
      stderr: 'noise',
    })
    expect(signIn).toEqual({
      kind: 'needs_sign_in',
      message: 'needs sign-in: run `ptc-mcp auth web`',
      fix: 'run `ptc-mcp auth web`',
    })
  })

  it('names a slow first start and the key to raise in the timeout fix, with the value in force', () => {
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')
    expect(classify({...stdio, connect_timeout_seconds: 45}, error, {timedOut: true}).fix).toBe(
      "the server did not answer in time: a first start can be slow (npx downloading a package), so raise connect_timeout_seconds (the server's own, or the top-level default; now 45 s), or check that it starts on its own and speaks MCP",
    )
    expect(classify(stdio, error, {timedOut: true}).fix).toContain('now 30 s')
  })

  it('classifies remote failures from the error object: status, refused, unknown host, anything else', () => {
    const notFound = classify(http, Object.assign(new Error('Not Found'), {status: 404}))
    expect(notFound).toMatchObject({kind: 'not_mcp_endpoint', status: 404})
    expect(notFound.fix).toMatch(/^no MCP endpoint at \/mcp/)
    const refused = classify(http, new TypeError('fetch failed', {cause: {code: 'ECONNREFUSED'}}))
    expect(refused).toMatchObject({
      kind: 'connection_refused',
      message: expect.stringMatching(/^fetch failed/),
    })
    expect(classify(http, new TypeError('fetch failed', {cause: {code: 'ENOTFOUND'}})).kind).toBe(
      'unknown_host',
    )
    expect(classify(http, new Error('something else'))).toMatchObject({kind: 'other', fix: GENERIC_FIX})
  })

  it('redacts the message, the fix and the stderr line alike', () => {
    const crashed = classify(stdio, new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), {
      stderr: 'Error: bad token s3cret',
    })
    const redacted = redactFailure(crashed, (text) => text.replaceAll('s3cret', '[redacted]'))
    expect(JSON.stringify(redacted)).not.toContain('s3cret')
    expect(redacted.stderr).toBe('Error: bad token [redacted]')
  })
})
