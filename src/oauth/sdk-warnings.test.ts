// @tier unit
import {afterEach, describe, expect, it, vi} from 'vitest'

import {createLogger} from '../shared/log.js'
import {routeSdkWarnings} from './sdk-warnings.js'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('routeSdkWarnings', () => {
  it("sends the SDK's own warning lines through ptc-mcp's logger, and leaves other warnings alone", () => {
    const lines: string[] = []
    const passed = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    routeSdkWarnings(createLogger('warn', (line) => lines.push(line)))
    // eslint-disable-next-line no-console -- what the SDK does
    console.warn(
      '[mcp-sdk] OAuth "invalid_client" — invalidating the stored client credentials and tokens and retrying authorization.',
    )
    expect(lines).toEqual([
      '[ptc-mcp] warn: MCP SDK: OAuth "invalid_client" — invalidating the stored client credentials and tokens and retrying authorization.\n',
    ])
    // eslint-disable-next-line no-console -- a warning not the SDK's
    console.warn('something else')
    expect(lines).toHaveLength(1)
    expect(passed.mock.calls.map(([chunk]) => String(chunk)).join('')).toContain('something else')
  })
})
