/**
 * What went wrong with a tool call: Python's `ToolError.kind` (SPEC §6). The runner's `ToolError`
 * lists them in its docstring (what `help(ToolError)` shows a program) and raises some itself;
 * tool-error-kinds.test.ts fails when the Python side names a kind this list lacks, or lists fewer.
 */
export const TOOL_ERROR_KINDS = [
  'tool_error',
  'invalid_arguments',
  'unknown_tool',
  'unavailable',
  'timeout',
  'budget',
  'too_large',
  'schema_mismatch',
  'denied',
  'protocol',
  // Over a bound of the state between programs (SPEC §6.2): the kind is the config key.
  'max_bytes',
  'max_value_bytes',
  'max_keys',
] as const
export type ToolErrorKind = (typeof TOOL_ERROR_KINDS)[number]
