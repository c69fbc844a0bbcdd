import {describe, expect, it} from 'vitest'

import {minimalEnvironment} from './stdio-transport.js'

describe('minimalEnvironment', () => {
  it('keeps only the safe variables, and no shell functions', () => {
    const env = minimalEnvironment({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      AWS_SECRET_ACCESS_KEY: 'secret',
      GITHUB_TOKEN: 'token',
      PTC_MCP_CONFIG: '/etc/ptc.yaml',
      SHELL: '() { evil; }',
    })
    expect(env).toEqual({PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8'})
  })
})
