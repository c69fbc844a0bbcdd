import type {RunOutcome} from './engine.js'

import {boundedTrace, type ToolCallCount} from './trace.js'

/**
 * The structured content of execute_program, also what `run --json` prints (SPEC §5): never more
 * than the text plus a bounded trace (MAX_TRACED_CALLS calls, then counts per tool). Shown images
 * travel as image content, kept files as resource links (and in the text), not here.
 */
export type StructuredOutcome = Omit<RunOutcome, 'files' | 'images' | 'shownImageFiles' | 'text'> & {
  more_tool_calls?: ToolCallCount[]
}

export function structuredOutcome({
  files: _files,
  images: _images,
  shownImageFiles: _shownImageFiles,
  text: _text,
  tool_calls: calls,
  ...rest
}: RunOutcome): StructuredOutcome {
  return {...rest, result: rest.result ?? null, ...boundedTrace(calls)}
}
