// @tier unit
// `${VAR}` in the gateway section (SPEC §18): gateway.store and gateway.auth.oauth's URLs are
// expanded with the config and validated as expanded; stdio serve's lenient load leaves out a
// gateway section it cannot use, and keeps the servers.
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ConfigError} from '../shared/errors.js'
import {loadConfigLeniently} from './degrade.js'
import {parseConfigText} from './load.js'

const OAUTH = [
  'gateway:',
  '  store: "${REDIS_URL}"',
  '  auth:',
  '    oauth:',
  '      issuer: "${ISSUER}"',
  '      jwks_uri: "${ISSUER}/jwks"',
  '      resource: "https://${GATEWAY_HOST}/mcp"',
  '      audience: "${AUDIENCE:-api://ptc}"',
].join('\n')

const ENV = {
  ISSUER: 'https://login.example.com',
  GATEWAY_HOST: 'mcp.example.com',
  REDIS_URL: 'redis://:s3cret-pass@redis:6379',
}

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-mcp-gateway-expand-'))
})

afterEach(async () => {
  await rm(dir, {recursive: true, force: true})
})

function configError(text: string, env: Record<string, string>): string {
  try {
    parseConfigText(text, {env})
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).message
  }
  throw new Error('the config loaded')
}

describe('${VAR} in the gateway section', () => {
  it("expands gateway.store and gateway.auth.oauth's issuer, jwks_uri, resource and audience", () => {
    const {config, secrets} = parseConfigText(OAUTH, {env: ENV})
    expect(config.gateway.store).toBe('redis://:s3cret-pass@redis:6379')
    expect(config.gateway.auth.oauth).toMatchObject({
      issuer: 'https://login.example.com',
      jwks_uri: 'https://login.example.com/jwks',
      resource: 'https://mcp.example.com/mcp',
      audience: 'api://ptc',
    })
    // The store's URL may hold a password: redacted. The OAuth URLs are public: the log shows them.
    expect(secrets).toEqual(['redis://:s3cret-pass@redis:6379'])
  })

  it('names an unset variable where it is used, not as a bad URL', () => {
    const message = configError(OAUTH, {GATEWAY_HOST: 'mcp.example.com', REDIS_URL: ENV.REDIS_URL})
    expect(message).toContain('gateway.auth.oauth.issuer')
    expect(message).toContain('environment variable ISSUER is not set (gateway.auth.oauth)')
    expect(message).not.toContain('expected a URL')
  })

  it('validates the expanded value', () => {
    const message = configError(OAUTH, {...ENV, ISSUER: 'login.example.com'})
    expect(message).toMatch(/gateway\.auth\.oauth\.issuer.*expected a URL/)
    expect(configError(OAUTH, {...ENV, REDIS_URL: 'localhost:6379'})).toMatch(
      /gateway\.store.*a redis:\/\/ URL/,
    )
  })

  it("leaves the gateway section out of stdio serve's config when a variable is unset there, keeping the servers", async () => {
    const flag = join(dir, 'config.yaml')
    await writeFile(flag, `servers:\n  - {name: a, command: node}\n${OAUTH}\n`)
    const loaded = await loadConfigLeniently({flag, env: {HOME: dir}})
    expect(loaded.error).toBeNull()
    expect(loaded.config.servers.map((server) => server.name)).toEqual(['a'])
    expect(loaded.config.gateway.auth.oauth).toBeUndefined()
    expect(loaded.warnings).toContainEqual(
      expect.stringMatching(
        /^gateway\.auth\.oauth\.issuer: environment variable ISSUER is not set.*ignored here/,
      ),
    )
  })
})
