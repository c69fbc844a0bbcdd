// @tier unit
import {describe, expect, it} from 'vitest'

import {executionSchema} from '../config/schema.js'
import {createLogger} from '../shared/log.js'
import {maxResultSizeChars} from './execute-program.js'
import {limitOutput, userOutputLimit} from './output-limit.js'

function capturingLogger(): {logger: ReturnType<typeof createLogger>; lines: string[]} {
  const lines: string[] = []
  return {logger: createLogger('info', (line) => lines.push(line)), lines}
}

describe('MAX_MCP_OUTPUT_TOKENS (SPEC §5)', () => {
  it('is read as 4 characters a token', () => {
    expect(userOutputLimit({MAX_MCP_OUTPUT_TOKENS: '2000'})).toBe(8000)
    expect(userOutputLimit({MAX_MCP_OUTPUT_TOKENS: ' 25000 '})).toBe(100_000)
    expect(userOutputLimit({})).toBeUndefined()
  })

  it.each(['abc', '0', '-5', '1.5', '2000tokens', '1e9'])('%s is ignored with one warning', (raw) => {
    const {logger, lines} = capturingLogger()
    expect(userOutputLimit({MAX_MCP_OUTPUT_TOKENS: raw}, logger)).toBeUndefined()
    expect(userOutputLimit({MAX_MCP_OUTPUT_TOKENS: raw}, logger)).toBeUndefined()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /warn: MAX_MCP_OUTPUT_TOKENS=".*" is not a whole number of tokens above 0: ignored/,
    )
  })

  it('bounds the output so that an answer fits, and the inline size Claude Code is told', () => {
    const execution = executionSchema.parse({})
    expect(maxResultSizeChars(execution)).toBeGreaterThan(100_000)
    const {logger, lines} = capturingLogger()
    limitOutput(execution, 8000, logger)
    expect(execution.max_output_bytes).toBe(3250)
    expect(lines.join('')).toMatch(/programs' output is cut at 3250 bytes/)
    expect(maxResultSizeChars(execution, 8000)).toBe(8000)
    // A generous limit leaves the cap as configured; none changes nothing.
    const roomy = executionSchema.parse({})
    limitOutput(roomy, 1_000_000)
    limitOutput(roomy, userOutputLimit({}))
    expect(roomy.max_output_bytes).toBe(65_536)
    expect(maxResultSizeChars(roomy, 1_000_000)).toBe(maxResultSizeChars(roomy))
    // A tiny one still leaves a program some output.
    const tiny = executionSchema.parse({})
    limitOutput(tiny, 400)
    expect(tiny.max_output_bytes).toBe(512)
  })
})
