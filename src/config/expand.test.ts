// @tier unit
import {describe, expect, it} from 'vitest'

import {expandConfig, expandString} from './expand.js'

describe('expandString', () => {
  const env = {HOST: 'api.example.com', EMPTY: '', TOKEN: 's3cr3t'}

  it('replaces ${VAR} with its value, several times in one string', () => {
    expect(expandString('https://${HOST}/mcp?h=${HOST}', env)).toEqual({
      value: 'https://api.example.com/mcp?h=api.example.com',
      unset: [],
      malformed: [],
      substituted: ['api.example.com', 'api.example.com'],
    })
  })

  it('uses the default of ${VAR:-default} when VAR is unset or empty, as the shell does', () => {
    expect(expandString('${MISSING:-8080}/${EMPTY:-x}/${HOST:-other}/${MISSING:-}', env).value).toBe(
      '8080/x/api.example.com/',
    )
  })

  it('keeps a set but empty ${VAR} as the empty string', () => {
    expect(expandString('a${EMPTY}b', env)).toEqual({
      value: 'ab',
      unset: [],
      malformed: [],
      substituted: [''],
    })
  })

  it('lists each unset variable once', () => {
    expect(expandString('${A}${B}${A}', env).unset).toEqual(['A', 'B'])
  })

  it('reads $${ as a literal ${ and leaves every other $ alone', () => {
    expect(expandString('$${HOST} $HOST $$ $1 cost: 5$', env)).toEqual({
      value: '${HOST} $HOST $$ $1 cost: 5$',
      unset: [],
      malformed: [],
      substituted: [],
    })
  })

  it('reports the values variables took, for redaction, but not the defaults written in the file', () => {
    expect(expandString('${TOKEN}:${MISSING:-fallback-text}:${HOST:-other}', env).substituted).toEqual([
      's3cr3t',
      'api.example.com',
    ])
  })

  it('does not expand a default', () => {
    expect(expandString('${MISSING:-${HOST}}', env).value).toBe('${HOST}')
  })

  it('reports a reference that is not ${VAR} or ${VAR:-default}, and an unterminated ${', () => {
    expect(expandString('${1X} ${FOO-bar} ${}', env).malformed).toHaveLength(3)
    expect(expandString('abc ${HOST', env).malformed).toEqual([
      expect.stringContaining('without a closing "}"'),
    ])
  })
})

describe('expandConfig', () => {
  const raw = {
    servers: [
      {
        name: 'fin',
        command: '${BIN:-node}',
        args: ['${DIR}/server.js', 42],
        env: {API_KEY: '${FIN_KEY}', PORT: 8080},
        cwd: '${DIR}',
      },
      {
        name: 'api',
        transport: 'http',
        url: 'https://${HOST}/mcp',
        headers: {Authorization: 'Bearer ${TOKEN}'},
      },
    ],
    execution: {python: '${NOT_EXPANDED}'},
  }

  it('expands command, args, env values, cwd, url and headers values, and nothing else', () => {
    const env = {
      DIR: '/srv',
      FIN_KEY: 'k',
      HOST: 'h.example',
      TOKEN: 't',
    }
    expect(expandConfig(raw, env)).toEqual({
      value: {
        servers: [
          {
            name: 'fin',
            command: 'node',
            args: ['/srv/server.js', 42],
            env: {API_KEY: 'k', PORT: 8080},
            cwd: '/srv',
          },
          {
            name: 'api',
            transport: 'http',
            url: 'https://h.example/mcp',
            headers: {Authorization: 'Bearer t'},
          },
        ],
        execution: {python: '${NOT_EXPANDED}'},
      },
      issues: [],
      secrets: ['/srv', 'k', 'h.example', 't'],
    })
  })

  it('does not modify its input', () => {
    const copy = structuredClone(raw)
    expandConfig(raw, {
      DIR: '/srv',
      FIN_KEY: 'k',
      HOST: 'h',
      TOKEN: 't',
    })
    expect(raw).toEqual(copy)
  })

  it('collects every unset variable, naming the server, the field and the variable', () => {
    const {issues} = expandConfig(raw, {})
    expect(issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['servers.0.args.0', expect.stringMatching(/^environment variable DIR is not set \(server "fin"\)/)],
      [
        'servers.0.env.API_KEY',
        expect.stringMatching(/^environment variable FIN_KEY is not set \(server "fin"\)/),
      ],
      ['servers.0.cwd', expect.stringMatching(/^environment variable DIR is not set/)],
      ['servers.1.url', expect.stringMatching(/^environment variable HOST is not set \(server "api"\)/)],
      [
        'servers.1.headers.Authorization',
        expect.stringMatching(/^environment variable TOKEN is not set \(server "api"\)/),
      ],
    ])
  })

  it('never puts a value in a message', () => {
    const {issues} = expandConfig(
      {servers: [{name: 'x', command: 'c', env: {KEY: '${SECRET}${UNSET}', OTHER: '${SECRET'}}]},
      {SECRET: 'hunter2-value'},
    )
    expect(issues).toHaveLength(2)
    for (const issue of issues) expect(issue.message).not.toContain('hunter2')
  })

  it('leaves a config without a list of servers as it is', () => {
    expect(expandConfig(null, {})).toEqual({value: null, issues: [], secrets: []})
    expect(expandConfig({servers: 'nope'}, {})).toEqual({value: {servers: 'nope'}, issues: [], secrets: []})
  })
})
