// @tier unit
import {describe, expect, it} from 'vitest'

import type {ServerConfig} from '../config/schema.js'

import {isSecretKey, protectSecrets, referencedVariables} from './secrets.js'

const stdio = (name: string, env: Record<string, string>, args: string[] = []): ServerConfig => ({
  name,
  transport: 'stdio',
  command: 'npx',
  args,
  env,
})

const http = (
  name: string,
  headers: Record<string, string>,
  url = 'https://x.example/mcp',
): ServerConfig => ({
  name,
  transport: 'http',
  url,
  headers,
})

describe('isSecretKey', () => {
  it.each([
    'API_KEY',
    'GITHUB_PERSONAL_ACCESS_TOKEN',
    'X-API-Key',
    'Authorization',
    'DB_PASSWORD',
    'PGPASSWORD',
    'clientSecret',
    'SLACK_BOT_TOKEN',
    'AUTH',
  ])('%s names a secret', (key) => expect(isSecretKey(key)).toBe(true))

  it.each([
    'PATH',
    'PGHOST',
    'LOG_LEVEL',
    'MONKEY_COUNT',
    'AUTH_URL',
    'PRIVATE_KEY_PATH',
    'MAX_TOKENS',
    'Notion-Version',
  ])('%s does not', (key) => expect(isSecretKey(key)).toBe(false))
})

describe('protectSecrets', () => {
  const servers = [
    stdio('github', {GITHUB_TOKEN: 'ghp_example', LOG_LEVEL: 'debug', DB_PASSWORD: '${DB_PASSWORD}'}),
    http('notion', {Authorization: 'Bearer ntn_example', 'Notion-Version': '2022-06-28'}),
    http('events', {'X-API-Key': 'events-key'}),
  ]

  it('copies literals when asked to, and reports each one without its value', () => {
    const {servers: out, secrets} = protectSecrets(servers, {envRefs: false})
    expect(out).toEqual(servers)
    expect(secrets).toEqual([
      {server: 'github', field: 'env.GITHUB_TOKEN', variable: 'GITHUB_TOKEN', replaced: false},
      {server: 'notion', field: 'headers.Authorization', variable: 'NOTION_TOKEN', replaced: false},
      {server: 'events', field: 'headers.X-API-Key', variable: 'EVENTS_API_KEY', replaced: false},
    ])
    expect(JSON.stringify(secrets)).not.toMatch(/ghp_example|ntn_example|events-key/)
  })

  it('writes ${VAR} references with env refs, keeping the auth scheme and existing references', () => {
    const {servers: out, secrets} = protectSecrets(servers, {envRefs: true})
    expect(out).toEqual([
      stdio('github', {GITHUB_TOKEN: '${GITHUB_TOKEN}', LOG_LEVEL: 'debug', DB_PASSWORD: '${DB_PASSWORD}'}),
      http('notion', {Authorization: 'Bearer ${NOTION_TOKEN}', 'Notion-Version': '2022-06-28'}),
      http('events', {'X-API-Key': '${EVENTS_API_KEY}'}),
    ])
    expect(secrets.every((s) => s.replaced)).toBe(true)
  })

  it('finds secrets in arguments and URL query parameters', () => {
    const {servers: out} = protectSecrets(
      [
        stdio('brave', {}, [
          '--api-key=abc123456',
          '--token',
          'tok123456',
          '--units',
          'metric',
          'sk-example123',
        ]),
        http('hosted', {}, 'https://h.example/mcp?profile=me&api_key=k123456#top'),
      ],
      {envRefs: true},
    )
    expect(out[0]).toMatchObject({
      args: ['--api-key=${API_KEY}', '--token', '${TOKEN}', '--units', 'metric', '${BRAVE_TOKEN}'],
    })
    expect(out[1]).toMatchObject({url: 'https://h.example/mcp?profile=me&api_key=${HOSTED_API_KEY}#top'})
  })

  it('gives different values different variables, and one value one variable', () => {
    const {servers: out} = protectSecrets(
      [
        stdio('one', {API_KEY: 'first-value'}),
        stdio('two', {API_KEY: 'second-value'}),
        stdio('three', {API_KEY: 'first-value'}),
        stdio('four', {SERVICE_KEY: 'x', API_KEY: 'second-value', OTHER: 'y'}, ['--api-key=second-value']),
      ],
      {envRefs: true},
    )
    expect(out.map((s) => (s.transport === 'stdio' ? s.env.API_KEY : undefined))).toEqual([
      '${API_KEY}',
      '${TWO_API_KEY}',
      '${API_KEY}',
      '${TWO_API_KEY}',
    ])
    expect(out[3]).toMatchObject({args: ['--api-key=${TWO_API_KEY}']})
  })

  it('never reuses a variable the config already references for something else', () => {
    const {servers: out} = protectSecrets(
      [stdio('a', {API_KEY: '${API_KEY}'}), stdio('b', {API_KEY: 'literal-value'})],
      {envRefs: true},
    )
    expect(out[1]).toMatchObject({env: {API_KEY: '${B_API_KEY}'}})
  })

  it('leaves plain values alone even under secret-looking keys', () => {
    const {secrets} = protectSecrets([stdio('s', {USE_AUTH: 'true', API_TOKEN: '', AUTH: '1'})], {
      envRefs: true,
    })
    expect(secrets).toEqual([])
  })
})

describe('referencedVariables', () => {
  it('lists variables without defaults, per server, ignoring $${ escapes', () => {
    expect(
      referencedVariables([
        stdio('a', {T: '${TOKEN}', L: '${LEVEL:-info}', E: '$${LITERAL}'}, ['--home=${HOME_DIR}']),
        http('b', {Authorization: 'Bearer ${TOKEN}'}, '${BASE}/mcp'),
      ]),
    ).toEqual([
      {name: 'BASE', servers: ['b']},
      {name: 'HOME_DIR', servers: ['a']},
      {name: 'TOKEN', servers: ['a', 'b']},
    ])
  })
})
