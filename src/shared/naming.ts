import {MAX_SUGGESTED_NAME_CHARS} from './limits.js'

/**
 * Tool names as programs see them (SPEC §4): `mcp__<server>__<tool>`, every character that is not
 * `[A-Za-z0-9_]` replaced by `_`. The Python original does this per code point, so an emoji becomes
 * one `_`, not two.
 */

const NOT_NAME_CHAR = /[^A-Za-z0-9_]/gu
const SEPARATOR = '__'

/** `my-cool-server` → `my_cool_server`. */
export function normaliseName(name: string): string {
  return name.replaceAll(NOT_NAME_CHAR, '_')
}

const NAME_CHAR = /^[A-Za-z0-9_]$/u

/**
 * A tool pattern (`tools.allow`, `tools.block`, and every later rule list) normalised exactly as
 * names are, so a rule written with a server's own spelling means what it says:
 * `mcp__my-srv__get-x` → `mcp__my_srv__get_x`, `mcp__my-srv__*` → `mcp__my_srv__*`. Glob syntax
 * is kept: `*`, `?`, `[...]` classes (verbatim, so `[a-z]` stays a range), `{a,b}` braces,
 * `+(...)`-style extglobs, a leading `!`, and `\` escapes (an escaped character is normalised).
 * Everything else that is not `[A-Za-z0-9_]` becomes `_`, one per code point, as in names.
 */
export function normalisePattern(pattern: string): string {
  const chars = [...pattern]
  const depth = {braces: 0, parens: 0}
  let out = ''
  for (let i = 0; i < chars.length; i++) {
    const syntax = globSyntaxAt(chars, i, depth)
    const next = chars[i + 1]
    if (syntax > 0) {
      out += chars.slice(i, i + syntax).join('')
      i += syntax - 1
    } else if (chars[i] === '\\' && next !== undefined) {
      out += NAME_CHAR.test(next) ? next : '_'
      i++
    } else {
      out += NAME_CHAR.test(chars[i]!) ? chars[i] : '_'
    }
  }
  return out
}

/** How many characters from `at` are glob syntax to keep as they are (0: none); tracks nesting in `depth`. */
function globSyntaxAt(chars: readonly string[], at: number, depth: {braces: number; parens: number}): number {
  const char = chars[at]!
  if ('+@!?*'.includes(char) && chars[at + 1] === '(' && chars.includes(')', at + 2)) {
    depth.parens++
    return 2
  }
  if (char === '*' || char === '?' || (char === '!' && at === 0)) return 1
  if (char === '[') return classEnd(chars, at) === -1 ? 0 : classEnd(chars, at) - at + 1
  if (char === '{' && chars.includes('}', at + 1)) {
    depth.braces++
    return 1
  }
  if ((char === '}' || char === ',') && depth.braces > 0) {
    if (char === '}') depth.braces--
    return 1
  }
  if ((char === ')' || char === '|') && depth.parens > 0) {
    if (char === ')') depth.parens--
    return 1
  }
  return 0
}

/** Index of the `]` closing the class opened at `start`, or -1 (then `[` is a literal). */
function classEnd(chars: readonly string[], start: number): number {
  let at = start + 1
  if (chars[at] === '!' || chars[at] === '^') at++
  // A `]` right after the opening is a member, not the end.
  if (chars[at] === ']') at++
  for (; at < chars.length; at++) if (chars[at] === ']') return at
  return -1
}

/** `'my-cool-server'` → `mcp__my_cool_server__`: what every tool name of the server starts with. */
export function serverPrefix(server: string): string {
  return `mcp${SEPARATOR}${normaliseName(server)}${SEPARATOR}`
}

/** `('my-cool-server', 'get-data-now')` → `mcp__my_cool_server__get_data_now`. */
export function namespacedName(server: string, tool: string): string {
  return `${serverPrefix(server)}${normaliseName(tool)}`
}

export interface NamespacedTool<T> {
  /** The namespaced name the program calls. */
  name: string
  tool: T
}

export interface NameClash {
  /** The namespaced name several tools normalise to. */
  name: string
  /** Their original names, in listing order; the first is the one kept. */
  tools: string[]
}

/**
 * Namespaces one server's tools. When two normalise to the same name the first listed is kept and
 * the clash is reported, so the caller can log it.
 */
export function dedupeTools<T extends {name: string}>(
  server: string,
  tools: readonly T[],
): {kept: NamespacedTool<T>[]; clashes: NameClash[]} {
  const kept: NamespacedTool<T>[] = []
  const byName = new Map<string, string[]>()
  for (const tool of tools) {
    const name = namespacedName(server, tool.name)
    const originals = byName.get(name)
    if (originals) {
      originals.push(tool.name)
      continue
    }
    byName.set(name, [tool.name])
    kept.push({name, tool})
  }
  const clashes = [...byName]
    .filter(([, originals]) => originals.length > 1)
    .map(([name, originals]) => ({name, tools: originals}))
  return {kept, clashes}
}

/**
 * The names closest to an unknown one, best first, for "did you mean"; none for a name over
 * `MAX_SUGGESTED_NAME_CHARS`. Compares the tool part (after
 * the last `__`) so a wrong server still finds the tool, then the whole name to break ties. A name
 * whose tool part contains the query's (or the reverse), or starts with a near miss of it, counts as
 * close. Case and `-` vs `_` are ignored.
 */
export function suggestNames(query: string, names: readonly string[], max = 3): string[] {
  if (query.length > MAX_SUGGESTED_NAME_CHARS) return []
  const wanted = comparable(query)
  const wantedTool = toolPart(wanted)
  if (!wantedTool || max <= 0) return []
  const threshold = Math.max(2, Math.floor(wantedTool.length / 3))
  return names
    .map((name) => {
      const candidate = comparable(name)
      const candidateTool = toolPart(candidate)
      const contained =
        Math.min(wantedTool.length, candidateTool.length) >= 3 &&
        (candidateTool.includes(wantedTool) || wantedTool.includes(candidateTool))
      // A typo in the start of a longer name: compare with the candidate's prefix, one step further away.
      const prefixDistance = levenshtein(wantedTool, candidateTool.slice(0, wantedTool.length)) + 1
      const toolScore = Math.min(
        levenshtein(wantedTool, candidateTool),
        prefixDistance,
        contained ? 1 : Infinity,
      )
      return {name, toolScore, whole: levenshtein(wanted, candidate)}
    })
    .filter((s) => s.toolScore <= threshold)
    .sort((a, b) => a.toolScore - b.toolScore || a.whole - b.whole || a.name.localeCompare(b.name, 'en'))
    .slice(0, max)
    .map((s) => s.name)
}

function comparable(name: string): string {
  return normaliseName(name.trim()).toLowerCase()
}

function toolPart(name: string): string {
  const at = name.lastIndexOf(SEPARATOR)
  return at === -1 ? name : name.slice(at + SEPARATOR.length)
}

/** Edit distance (insertions, deletions, substitutions), two rows of memory. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}
