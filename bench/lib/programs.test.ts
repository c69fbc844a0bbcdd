// @tier unit
import {describe, expect, test} from 'vitest'

import {benchDownstream, everythingDownstream} from './downstreams.js'
import {luaCalls, luaCode} from './my-cool-proxy.js'
import {ptcCode} from './ptc-mcp.js'
import {slopCode} from './slop-mcp.js'

describe('bench programs', () => {
  test('ptc-mcp calls a tool by its namespaced name, hyphens and all', () => {
    const {code} = ptcCode(
      {kind: 'fanout', call: everythingDownstream.sleep(50), n: 64},
      everythingDownstream,
    )
    expect(code).toContain(
      'await asyncio.gather(*[mcp__everything__trigger_long_running_operation(duration=0.05, steps=1) for _ in range(64)])',
    )
  })

  test('slop-mcp cannot name a hyphenated tool, so that program is left out, not guessed', () => {
    expect(
      slopCode({kind: 'fanout', call: everythingDownstream.sleep(50), n: 64}, everythingDownstream),
    ).toBe(undefined)
    const calls = slopCode({kind: 'calls', call: benchDownstream.cheap, n: 300}, benchDownstream)
    expect(calls?.code).toBe('for i in range(300):\n  bench.echo(text: "x")\nemit(1)')
  })

  test('my-cool-proxy: hyphens become underscores in Lua, and a fan-out awaits 8 promises at a time', () => {
    const fanout = luaCode(
      {kind: 'fanout', call: everythingDownstream.sleep(50), n: 64},
      everythingDownstream,
    )
    expect(fanout.code).toContain(
      'for i = 1, 8 do pending[i] = everything.trigger_long_running_operation({duration = 0.05, steps = 1}) end',
    )
    expect(fanout.code).toContain('for b = 1, 8 do')
    expect(luaCode({kind: 'calls', call: benchDownstream.cheap, n: 300}, benchDownstream).code).toBe(
      'for i = 1, 300 do bench.echo({text = "x"}):await() end\nresult(1)',
    )
  })

  test('my-cool-proxy: the tools a script calls (each to be inspected first), not Lua library calls', () => {
    const script = 'local r = fin.get_rows({a = 1}):await()\nstring.format("%d", 1)\nfin.get_rows({})\nb.c()'
    expect(luaCalls(script)).toEqual([
      ['fin', 'get_rows'],
      ['b', 'c'],
    ])
  })
})
