// @tier unit
import {describe, expect, it} from 'vitest'

import {parseConfigText} from './load.js'

describe('connect_timeout_seconds', () => {
  it('at the top level is the default of every server that sets none', () => {
    const {config} = parseConfigText(
      [
        'connect_timeout_seconds: 90',
        'servers:',
        '  - {name: cold, command: npx, args: ["-y", "some-server"]}',
        '  - {name: quick, command: node, connect_timeout_seconds: 5}',
        '  - {name: web, transport: http, url: "https://example.com/mcp"}',
      ].join('\n'),
      {env: {}},
    )
    expect(config.servers.map((server) => [server.name, server.connect_timeout_seconds])).toEqual([
      ['cold', 90],
      ['quick', 5],
      ['web', 90],
    ])
  })

  it('unset, leaves the servers to the engine default (30 s)', () => {
    const {config} = parseConfigText('servers:\n  - {name: a, command: node}\n', {env: {}})
    expect(config.servers[0]?.connect_timeout_seconds).toBeUndefined()
  })

  it('must be a number > 0', () => {
    expect(() => parseConfigText('connect_timeout_seconds: 0\n', {env: {}})).toThrow(
      /connect_timeout_seconds: .*(>0|> 0|too small)/,
    )
  })
})
