// @tier unit
import {describe, expect, it} from 'vitest'

import {plainServeFlags} from './serve-fast-path.js'

describe('plainServeFlags', () => {
  it('takes --config, -c and --log-level, each with its value, in either form', () => {
    expect(plainServeFlags([])).toEqual({})
    expect(plainServeFlags(['--config', 'a.yaml'])).toEqual({config: 'a.yaml'})
    expect(plainServeFlags(['--config=a=b.yaml'])).toEqual({config: 'a=b.yaml'})
    expect(plainServeFlags(['-c', 'a.yaml', '--log-level', 'debug'])).toEqual({
      config: 'a.yaml',
      'log-level': 'debug',
    })
    expect(plainServeFlags(['--log-level=info', '--config', 'x'])).toEqual({config: 'x', 'log-level': 'info'})
  })

  it('leaves everything else to oclif: help, unknown flags, bad or missing values, repeats, arguments', () => {
    for (const args of [
      ['--help'],
      ['-h'],
      ['--nope'],
      ['extra'],
      ['--log-level', 'loud'],
      ['--log-level=DEBUG'],
      ['--config'],
      ['--config='],
      ['--config', '--log-level', 'debug'],
      ['-c', 'a', '--config', 'b'],
      ['-ca.yaml'],
      ['-c=a.yaml'],
      ['--', '--config', 'a'],
      ['--config', 'a', 'extra'],
    ])
      expect(plainServeFlags(args), args.join(' ')).toBeUndefined()
  })
})
