import {describe, expect, it} from 'vitest'

import type {ServerConfig} from '../../config/schema.js'

import {createLogger} from '../../shared/log.js'
import {MIN_SECRET_LENGTH, REDACTED, Redactor} from './redactor.js'

describe('Redactor', () => {
  it('takes secrets added later (OAuth tokens) out too, in loggers made before they were known', () => {
    const lines: string[] = []
    const redactor = new Redactor([])
    const log = redactor.logger(createLogger('debug', (line) => lines.push(line)))
    redactor.add(['access-token-0123456789', 'short'])
    log.child('srv').warn('sent access-token-0123456789, and short')
    expect(redactor.redact('"access-token-0123456789"')).toBe(`"${REDACTED}"`)
    expect(lines).toEqual([`[ptc-mcp:srv] warn: sent ${REDACTED}, and short\n`])
    Redactor.none.add(['never-in-the-shared-one'])
    expect(Redactor.none.empty).toBe(true)
  })

  it('replaces every occurrence of each secret, the longest first', () => {
    const redactor = new Redactor(['tok-12345678', 'tok-12345678-extended'])
    expect(redactor.redact('a tok-12345678-extended b tok-12345678 c')).toBe(`a ${REDACTED} b ${REDACTED} c`)
  })

  it(`leaves values shorter than ${MIN_SECRET_LENGTH} characters alone, so "1" and "true" stay readable`, () => {
    const redactor = new Redactor(['1', 'true', 'debug', '8080', 'x'.repeat(MIN_SECRET_LENGTH - 1)])
    expect(redactor.empty).toBe(true)
    expect(redactor.redact('attempt 1: true, port 8080, level debug')).toBe(
      'attempt 1: true, port 8080, level debug',
    )
    expect(new Redactor(['y'.repeat(MIN_SECRET_LENGTH)]).redact('y'.repeat(MIN_SECRET_LENGTH))).toBe(REDACTED)
  })

  it('catches a secret JSON-escaped or URL-encoded, as error texts quote JSON and URLs', () => {
    const secret = 'ak"7\\q/x 0091'
    const redactor = new Redactor([secret])
    expect(redactor.redact(JSON.stringify({got: secret}))).toBe(`{"got":"${REDACTED}"}`)
    expect(redactor.redact(`GET /mcp?key=${encodeURIComponent(secret)}`)).toBe(`GET /mcp?key=${REDACTED}`)
  })

  it("takes every header and env value of the config, a header's token alone too, and the expanded values", () => {
    const servers = [
      {name: 's', transport: 'stdio', command: 'node', args: [], env: {KEY: 'literal-env-value', FLAG: '1'}},
      {name: 'h', transport: 'http', url: 'https://x', headers: {Authorization: 'Bearer literal-token-1'}},
      {
        name: 'o',
        transport: 'http',
        url: 'https://y',
        headers: {},
        oauth: {client_secret: 'oauth-client-secret'},
      },
    ] as ServerConfig[]
    const redactor = Redactor.fromConfig(servers, ['/opt/expanded-dir'])
    expect(
      redactor.redact(
        'literal-env-value; 401 invalid token literal-token-1; /opt/expanded-dir/bin; FLAG=1; oauth-client-secret',
      ),
    ).toBe(`${REDACTED}; 401 invalid token ${REDACTED}; ${REDACTED}/bin; FLAG=1; ${REDACTED}`)
  })

  it('redacts values deep inside objects, and returns the same object when there is nothing to redact', () => {
    const redactor = new Redactor(['secret-value'])
    const clean = {a: ['x', {b: 'y'}]}
    expect(redactor.redactValue(clean)).toBe(clean)
    expect(redactor.redactValue({d: 'uses secret-value', n: 1, list: ['secret-value']})).toEqual({
      d: `uses ${REDACTED}`,
      n: 1,
      list: [REDACTED],
    })
  })

  it('wraps a logger: every line, of its children too, is redacted', () => {
    const lines: string[] = []
    const logger = new Redactor(['secret-value']).logger(createLogger('debug', (line) => lines.push(line)))
    logger.child('srv').info('stderr: fatal: token rejected: secret-value')
    logger.warn('secret-value')
    expect(lines).toEqual([
      `[ptc-mcp:srv] info: stderr: fatal: token rejected: ${REDACTED}\n`,
      `[ptc-mcp] warn: ${REDACTED}\n`,
    ])
  })
})
