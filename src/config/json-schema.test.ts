// @tier unit
import {readFile} from 'node:fs/promises'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {configJsonSchema, renderConfigJsonSchema} from './json-schema.js'
import {loadConfig, parseConfigText} from './load.js'
import {configSchema} from './schema.js'

const root = (file: string) => fileURLToPath(new URL(`../../${file}`, import.meta.url))

/** Every property name the JSON Schema declares, at any depth. */
function schemaKeys(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) schemaKeys(item, into)
  } else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const name of Object.keys(value)) into.add(name)
      }

      if (key !== 'default') schemaKeys(value, into)
    }
  }

  return into
}

describe('config.schema.json', () => {
  it('is what the zod schema generates (run `npm run build` after changing src/config/schema.ts)', async () => {
    expect(await readFile(root('config.schema.json'), 'utf8')).toBe(renderConfigJsonSchema())
  })

  it('identifies itself and describes every key', () => {
    const schema = configJsonSchema()
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: expect.any(String),
    })
    expect([...schemaKeys(schema)].sort()).toEqual(
      [
        'servers',
        'name',
        'transport',
        'command',
        'connect_timeout_seconds',
        'args',
        'env',
        'cwd',
        'url',
        'headers',
        'oauth',
        'client_id',
        'client_secret',
        'scopes',
        'callback_port',
        'tools',
        'allow',
        'block',
        'permissions',
        'claude_code',
        'ask',
        'ask_unlisted',
        'ask_destructive',
        'approval_timeout_seconds',
        'max_question_rounds',
        'execution',
        'timeout_seconds',
        'max_output_bytes',
        'sandbox',
        'max_tool_calls',
        'max_concurrent_calls',
        'max_concurrent_programs',
        'max_scratch_bytes',
        'tool_call_timeout_seconds',
        'trace',
        'max_tool_result_bytes',
        'python',
        'record_samples',
        'warm_pool',
        'artifacts_dir',
        'state',
        'max_bytes',
        'max_value_bytes',
        'max_keys',
        'max_session_files',
        'flows',
        'private',
        'external',
        'trust_open_world',
        'action',
        'serve',
        'always_load',
        'gateway',
        'auth',
        'bearer',
        'principal',
        'token',
        'store',
        'state_idle_seconds',
        'shutdown_seconds',
        'issuer',
        'jwks_uri',
        'resource',
        'audience',
        'principal_claim',
        'per_principal',
        'programs_per_minute',
        'metrics_auth',
        'programs',
        'dirs',
        'expose',
        'save',
        'telemetry',
        'otlp',
        'arguments',
      ].sort(),
    )
  })
})

describe('config.example.yaml', () => {
  it('is a valid config, with the default values, that launches no server', async () => {
    const {config, warnings} = await loadConfig({flag: root('config.example.yaml'), env: {}})
    expect(config).toEqual(configSchema.parse({}))
    expect(warnings).toEqual([])
  })

  it('mentions every key of the schema', async () => {
    const text = await readFile(root('config.example.yaml'), 'utf8')
    const missing = [...schemaKeys(configJsonSchema())].filter(
      (key) => !new RegExp(`^[ #-]*${key}:`, 'm').test(text),
    )
    expect(missing).toEqual([])
  })

  it('has example servers that are valid once uncommented', async () => {
    const text = await readFile(root('config.example.yaml'), 'utf8')
    // Uncommenting an entry is deleting "# " from its lines (prose comments are "# " and a word).
    const [head = '', rest = ''] = text.split(/^servers:$/m)
    const [section = '', tail = ''] = rest.split(/^tools:$/m)
    const uncommented = `${head}servers:${section.replaceAll(/^# (?=- | {2})/gm, '')}tools:${tail}`
    const {config} = parseConfigText(uncommented, {env: {FIN_KEY: 'k', TOKEN: 't', ISSUES_SECRET: 's'}})
    expect(config.servers).toMatchObject([
      {name: 'financial-data', transport: 'stdio', env: {API_KEY: 'k'}},
      {name: 'internal-apis', transport: 'http', headers: {Authorization: 'Bearer t'}},
      {name: 'issues', transport: 'http', oauth: {client_id: 'ptc-mcp-local', client_secret: 's'}},
    ])
  })

  it('points editors at the schema', async () => {
    expect(await readFile(root('config.example.yaml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\.\/config\.schema\.json$/m,
    )
  })
})
