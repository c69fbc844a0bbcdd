// @tier unit
// blockedPort agrees with Node's own fetch: each port it names is one fetch refuses ("bad port"),
// and the ports around them are not (a differential test against the library it stands in for).
import {expect, it} from 'vitest'

import {blockedPort} from './blocked-ports.js'

/** Whether Node's fetch refuses the port before connecting (nothing listens there: a refusal either way). */
async function fetchRefuses(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, {signal: AbortSignal.timeout(5000)})
    return false
  } catch (error) {
    return (error as {cause?: {message?: unknown}}).cause?.message === 'bad port'
  }
}

it("names exactly the ports Node's fetch refuses, among them and their neighbours", async () => {
  const ports = new Set<number>()
  for (let port = 1; port <= 10_081; port++) {
    if (blockedPort(`http://127.0.0.1:${port}/`) === undefined) continue
    for (const near of [port - 1, port, port + 1]) if (near > 0) ports.add(near)
  }
  expect(ports.size).toBeGreaterThan(80)
  const sorted = [...ports].sort((a, b) => a - b)
  const refused = await Promise.all(sorted.map((port) => fetchRefuses(port)))
  const mismatches = sorted.filter(
    (port, i) => refused[i] !== (blockedPort(`http://127.0.0.1:${port}/`) !== undefined),
  )
  expect(mismatches).toEqual([])
  expect(blockedPort('https://example.com/mcp')).toBeUndefined()
  expect(blockedPort('http://[::1]:6667/mcp')).toBe(6667)
})
