// @tier unit
import {describe, expect, it} from 'vitest'

import {executionSchema, stateSchema} from '../config/schema.js'
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
      // Saved programs (SPEC §17): how one is made, and how a program runs one.
      'save_as="name"',
      'await run_program("name", **arguments) runs a saved one',
    ]) {
      expect(text).toContain(needed)
    }
    for (const kind of TOOL_ERROR_KINDS) expect(text).toContain(kind)
  })

  it('say what persists between programs, and how much, with the bounds in force (SPEC §6.2)', () => {
    const shipped = executeProgramDescription(executionSchema.parse({}))
    expect(shipped).toContain(
      'Kept for later programs of this session: await store(key, value), await load(key, default=None), await stored(), await forget(key) (JSON or Media values), and files left in ./session/. At most 64 MiB, 16 MiB per value, 1000 keys, 256 files (else ToolError kind max_bytes, max_value_bytes, max_keys).',
    )
    const tight = executeProgramDescription(
      executionSchema.parse({}),
      stateSchema.parse({max_bytes: 1024 * 1024, max_value_bytes: 4096, max_keys: 10, max_session_files: 3}),
    )
    expect(tight).toContain('At most 1 MiB, 4 KiB per value, 10 keys, 3 files')
    expect(shipped).not.toContain('Every run starts fresh.')
  })

  it('stay short: every word costs context in every session', () => {
    // Loaded on the first turn (anthropic/alwaysLoad): every character is paid in every session.
    expect(executeProgramDescription(executionSchema.parse({})).length).toBeLessThan(2680)
    expect(LIST_CALLABLE_TOOLS_DESCRIPTION.length).toBeLessThan(400)
    expect(INSPECT_TOOL_DESCRIPTION.length).toBeLessThan(400)
  })
})
