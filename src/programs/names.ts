/** A saved program's name: its file's stem (SPEC §17). */
export const PROGRAM_NAME = /^[a-z][a-z0-9_]*$/

/** The longest name taken: tool names are bounded by clients (64 characters). */
export const MAX_PROGRAM_NAME_CHARS = 64

/** serve's own tools: no saved program may take their names. */
export const RESERVED_PROGRAM_NAMES: ReadonlySet<string> = new Set([
  'execute_program',
  'inspect_tool',
  'list_callable_tools',
])

/** Why `name` cannot name a saved program, or undefined when it can. */
export function programNameProblem(name: string): string | undefined {
  if (name.length > MAX_PROGRAM_NAME_CHARS || !PROGRAM_NAME.test(name))
    return `"${name}" is not a program name: lowercase letters, digits and _, starting with a letter (at most ${MAX_PROGRAM_NAME_CHARS})`
  if (RESERVED_PROGRAM_NAMES.has(name)) return `"${name}" is one of serve's own tools: choose another name`
  if (name.startsWith('mcp__')) return `"${name}" looks like a downstream tool's name: choose another name`
  return undefined
}
