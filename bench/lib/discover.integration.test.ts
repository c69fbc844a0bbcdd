// @tier integration
import {describe, expect, test} from 'vitest'

import {spawnToDiscover} from './discover.js'
import {floorLaunch} from './sdk-floor.js'

describe('spawn → server/discover answered', () => {
  test('times a real SDK server until its answer', async () => {
    const ms = await spawnToDiscover(floorLaunch({downstreams: []}))
    expect(ms).toBeGreaterThan(0)
  })

  test('a server that exits without answering fails the measurement', async () => {
    await expect(
      spawnToDiscover({command: process.execPath, args: ['-e', 'process.exit(3)']}),
    ).rejects.toThrow(/exited \(3\) before answering server\/discover/)
  })
})
