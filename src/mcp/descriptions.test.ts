import {describe, expect, it} from 'vitest'

import {executionSchema} from '../config/schema.js'
import {TOOL_ERROR_KINDS} from '../downstream/types.js'
import {
  executeProgramDescription,
  INSPECT_TOOL_DESCRIPTION,
  LIST_CALLABLE_TOOLS_DESCRIPTION,
} from './descriptions.js'

describe('tool descriptions (SPEC §5)', () => {
  it('state the limits in force, a per-call limit never above the program limit', () => {
    const shipped = executeProgramDescription(executionSchema.parse({}))
    expect(shipped).toContain(
      'Limits: 100 tool calls per program, 8 at once, 60s per call, 120s per program, 64 KiB of output, 16 MiB per result.',
    )
    expect(shipped).toContain('files only in the current directory (256 MiB)')
    const tight = executeProgramDescription(
      executionSchema.parse({
        timeout_seconds: 30,
        tool_call_timeout_seconds: 60,
        max_output_bytes: 1000,
        max_scratch_bytes: 8 * 1024 * 1024,
      }),
    )
    expect(tight).toContain('30s per call, 30s per program, 1000 bytes of output')
    expect(tight).toContain('files only in the current directory (8 MiB)')
  })

  it('teach what a program needs: await, keyword arguments, ToolError and its kinds, _notes, helpers', () => {
    const text = executeProgramDescription(executionSchema.parse({}))
    for (const needed of [
      'await mcp__server__tool(name=value)',
      'asyncio.gather',
      '_notes',
      'emit(value)',
      'None leaves an optional argument out',
      'inspect_tool(tool_names=',
      'a refusal raises ToolError kind "denied"',
      'deleted afterwards but for ./out/, kept for the user (64 files, 64 MiB at most).',
    ]) {
      expect(text).toContain(needed)
    }
    for (const kind of TOOL_ERROR_KINDS) expect(text).toContain(kind)
  })

  it('stay short: every word costs context in every session', () => {
    expect(executeProgramDescription(executionSchema.parse({})).length).toBeLessThan(2200)
    expect(LIST_CALLABLE_TOOLS_DESCRIPTION.length).toBeLessThan(400)
    expect(INSPECT_TOOL_DESCRIPTION.length).toBeLessThan(400)
  })
})
