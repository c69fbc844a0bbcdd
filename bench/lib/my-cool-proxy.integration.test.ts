// @tier integration
// my-cool-proxy as the bench drives it, when it is installed (bench/README.md); skipped otherwise.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, test} from 'vitest'

import {closeAll} from './client.js'
import {benchDownstream} from './downstreams.js'
import {coolProxyBin, startCoolProxy} from './my-cool-proxy.js'

const dir = mkdtempSync(join(tmpdir(), 'ptc-bench-mcp-'))
afterAll(async () => {
  await closeAll()
  rmSync(dir, {recursive: true, force: true})
})

describe.skipIf(coolProxyBin().reason !== undefined)('my-cool-proxy as a peer gateway', () => {
  test('runs the bench programs in Lua against a real downstream, each tool inspected first', async () => {
    const gateway = await startCoolProxy({label: 'test', downstreams: [benchDownstream], dir})
    const run = async (program: Parameters<typeof gateway.code>[0]) =>
      (await gateway.run(gateway.code(program, benchDownstream)!.code)).text
    expect(await run({kind: 'trivial'})).toMatch(/Result:\n1$/)
    expect(await run({kind: 'calls', call: benchDownstream.cheap, n: 5})).toMatch(/Result:\n1$/)
    expect(await run({kind: 'fanout', call: benchDownstream.sleep(5), n: 16})).toMatch(/Result:\n1$/)
    expect(await run({kind: 'big', call: benchDownstream.big!(4096)})).toMatch(/Result:\n\d+ \d+(\.\d+)?$/)
    expect(await gateway.roundTrip(benchDownstream)).toBeGreaterThan(0)
    await expect(gateway.run('error("boom")')).rejects.toThrow(/^Lua script failed: .*boom/)
    await gateway.close()
  }, 60_000)
})
