import {describe, expect, test} from 'vitest'

import {benchDownstream, everythingDownstream} from './downstreams.js'
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
})
