// @tier unit
import {describe, expect, it} from 'vitest'

import {executionSchema} from '../config/schema.js'
import {base64Chars, childMessageBytes, downstreamMessageBytes, MAX_SHOWN_BYTES} from './limits.js'

const MiB = 1024 * 1024

describe('message limits', () => {
  it('base64 takes 4 characters for every 3 bytes, rounded up', () => {
    expect([0, 1, 3, 4, 6].map((bytes) => base64Chars(bytes))).toEqual([0, 4, 4, 8, 8])
    expect(Buffer.alloc(MAX_SHOWN_BYTES).toString('base64')).toHaveLength(base64Chars(MAX_SHOWN_BYTES))
  })

  it('a child line holds the largest of a call, an emit() value and a show() image, with room', () => {
    const margin = 256 * 1024
    expect(childMessageBytes({max_tool_result_bytes: 16 * MiB, max_output_bytes: 65_536})).toBe(
      16 * MiB + margin,
    )
    expect(childMessageBytes({max_tool_result_bytes: 1000, max_output_bytes: 20 * MiB})).toBe(
      20 * MiB + margin,
    )
    // With small limits, an image as base64 is the largest message.
    expect(childMessageBytes({max_tool_result_bytes: 1000, max_output_bytes: 1000})).toBe(
      base64Chars(MAX_SHOWN_BYTES) + margin,
    )
  })

  it("a downstream message holds a result twice, never less than the SDK's 10 MiB; the default follows the schema", () => {
    expect(downstreamMessageBytes({max_tool_result_bytes: 16 * MiB})).toBe(33 * MiB)
    expect(downstreamMessageBytes({max_tool_result_bytes: 1000})).toBe(10 * MiB)
    expect(downstreamMessageBytes()).toBe(downstreamMessageBytes(executionSchema.parse({})))
  })
})
