// @tier unit
// The fix a config error carries fits the error: an unset variable is fixed in the environment, a
// YAML indentation mistake is shown where it is, with the lines around it (values that could be
// secrets hidden).
import {describe, expect, it} from 'vitest'

import {ConfigError} from '../shared/errors.js'
import {parseConfigText} from './load.js'

function errorOf(text: string, env: Record<string, string> = {}): ConfigError {
  try {
    parseConfigText(text, {path: '/cfg/config.yaml', env})
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a ConfigError')
}

const SCHEMA_TIP = /yaml-language-server/

describe('config error hints', () => {
  it('an unset ${VAR} says where to set it, without the schema tip', () => {
    const error = errorOf('servers:\n  - {name: a, command: x, env: {K: "${PTC_HINT_UNSET}"}}\n')
    expect(error.message).toBe(
      'Invalid config /cfg/config.yaml:\n  servers[0].env.K: environment variable PTC_HINT_UNSET is not set (server "a"); set it, or give a default: ${PTC_HINT_UNSET:-...}',
    )
    expect(error.suggestion).toBe(
      'Set PTC_HINT_UNSET in the environment ptc-mcp starts in (the shell, or `claude mcp add ... -e PTC_HINT_UNSET=...` for Claude Code), or give a default in the file: ${PTC_HINT_UNSET:-...}.',
    )
  })

  it('an unset variable beside a mistake in the file gives both fixes', () => {
    const error = errorOf('servers:\n  - {name: a, command: x, env: {K: "${PTC_HINT_UNSET}"}, cwdd: /}\n')
    expect(error.suggestion).toMatch(/^Set PTC_HINT_UNSET in the environment/)
    expect(error.suggestion).toMatch(SCHEMA_TIP)
  })

  it('a key indented deeper than the one above points at its own line, with an excerpt', () => {
    const error = errorOf('servers:\n  - name: a\n    command: node\n      args: ["--token=s3cret"]\n')
    expect(error.message).toBe(
      [
        'Invalid YAML in /cfg/config.yaml:',
        '  line 4, column 7: this line is indented deeper than the key above it, which already has a value: indent it as its neighbours are',
        '    3 |     command: node',
        '    4 |       args: [...',
      ].join('\n'),
    )
    expect(error.suggestion).toBe(
      'Correct the YAML syntax at the lines shown (indentation with spaces, matching brackets and quotes).',
    )
  })

  it('a key indented less than its neighbours is shown the same way, secrets hidden', () => {
    const error = errorOf(
      'servers:\n  - name: a\n    transport: http\n    headers: {Authorization: "Bearer s3cret"}\n   url: http://x/mcp\n',
    )
    expect(error.message).toBe(
      [
        'Invalid YAML in /cfg/config.yaml:',
        '  line 5, column 1: Sequence item without - indicator: this line is not aligned with its neighbours; indent it as they are',
        '    4 |     headers: {...',
        '    5 |    url: ...',
      ].join('\n'),
    )
    expect(error.message).not.toContain('s3cret')
  })
})
