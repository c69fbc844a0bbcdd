// @tier integration
import {afterAll, describe, expect, test} from 'vitest'

import {closeAll} from './client.js'
import {benchDownstream} from './downstreams.js'
import {startFloor} from './sdk-floor.js'

afterAll(closeAll)

describe('the SDK floor gateway', () => {
  test('runs its plans against a real downstream: each call answered, a big result summed', async () => {
    const floor = await startFloor({label: 'floor-test', downstreams: [benchDownstream], dir: ''})
    const run = async (program: Parameters<typeof floor.code>[0]) =>
      (await floor.run(floor.code(program, benchDownstream)!.code)).text
    expect(await run({kind: 'trivial'})).toBe('1')
    expect(await run({kind: 'calls', call: benchDownstream.cheap, n: 5})).toBe('5 answered')
    expect(await run({kind: 'fanout', call: benchDownstream.sleep(5), n: 20})).toBe('20 answered')
    expect(await run({kind: 'big', call: benchDownstream.big!(4096)})).toMatch(/^\d+ \d+(\.\d+)?$/)
    await expect(
      floor.run(JSON.stringify({kind: 'calls', server: 'none', tool: 'echo', n: 1})),
    ).rejects.toThrow(/no server none/)
    await floor.close()
  }, 30_000)
})
