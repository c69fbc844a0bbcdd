/**
 * What the trace keeps of a call (SPEC §15): the arguments, the tool name and the error are cut
 * when recorded, so a program's calls cost the server a bounded amount of memory however large
 * they were, and so is every view of the trace (the structured content cuts further, SPEC §5).
 */

/** Characters of a call's arguments (as JSON) the trace keeps. */
export const RECORDED_ARGS_CHARS = 1000
/** Characters of a tool name the trace keeps; real names are far shorter. */
export const RECORDED_NAME_CHARS = 200
/** Characters of a call's error the trace keeps. */
export const RECORDED_ERROR_CHARS = 2000
/** Arguments listed one by one in a cut record; the rest are counted. */
const MAX_RECORDED_KEYS = 20
const ELLIPSIS = '…'
/** Deeper values are not walked (channel messages nest 100 levels at most). */
const MAX_WALK_DEPTH = 128

/** `text` when it fits in `maxChars`, else its head and `…`, a string of its own. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  // V8 keeps a slice as a view of the whole string: a copy lets the whole go.
  return Buffer.from(`${text.slice(0, maxChars)}${ELLIPSIS}`, 'utf16le').toString('utf16le')
}

/**
 * The arguments as recorded: the same object when its JSON fits in `maxChars`; else a new object
 * with the first keys, each value kept when small and otherwise cut to its head (a string's
 * characters, or the start of the value's JSON) followed by `…`. Costs O(maxChars), not O(size).
 */
export function cutArgs(
  args: Record<string, unknown>,
  maxChars = RECORDED_ARGS_CHARS,
): Record<string, unknown> {
  if (boundedJson(args, maxChars).complete) return args
  const keys = Object.keys(args)
  const shown = keys.slice(0, MAX_RECORDED_KEYS)
  const share = Math.max(16, Math.floor(maxChars / Math.max(1, shown.length)))
  const cut: Record<string, unknown> = {}
  for (const key of shown) {
    const value = args[key]
    const name = cutText(key, share)
    if (typeof value === 'string') cut[name] = cutText(value, share)
    else {
      const json = boundedJson(value, share)
      cut[name] = json.complete ? value : `${json.text}${ELLIPSIS}`
    }
  }
  if (keys.length > shown.length) cut[ELLIPSIS] = `${keys.length - shown.length} more arguments`
  return cut
}

/**
 * The JSON of `value`, up to `maxChars` characters: `complete` says whether that is all of it.
 * Stops walking as soon as the bound is reached, however large the value.
 */
export function boundedJson(value: unknown, maxChars: number): {text: string; complete: boolean} {
  const parts: string[] = []
  let size = 0
  const add = (part: string): boolean => {
    parts.push(part)
    size += part.length
    return size <= maxChars
  }
  // Each returns false once the bound is reached: everything stops there.
  const walkArray = (items: unknown[], depth: number): boolean => {
    if (!add('[')) return false
    for (const [index, entry] of items.entries()) {
      if (index > 0 && !add(',')) return false
      if (!walk(entry, depth + 1)) return false
    }
    return add(']')
  }
  const walkObject = (item: Record<string, unknown>, depth: number): boolean => {
    if (!add('{')) return false
    let first = true
    for (const key in item) {
      if (!Object.hasOwn(item, key)) continue
      const entry = item[key]
      if (entry === undefined || typeof entry === 'function') continue
      if (!first && !add(',')) return false
      first = false
      if (!walk(key, depth + 1) || !add(':') || !walk(entry, depth + 1)) return false
    }
    return add('}')
  }
  const walk = (item: unknown, depth: number): boolean => {
    if (typeof item === 'string') {
      const room = maxChars - size
      return add(JSON.stringify(item.length > room ? item.slice(0, room + 1) : item))
    }
    if (item === null || typeof item !== 'object') return add(JSON.stringify(item) ?? 'null')
    if (depth > MAX_WALK_DEPTH) {
      add(ELLIPSIS)
      return false
    }
    return Array.isArray(item) ? walkArray(item, depth) : walkObject(item as Record<string, unknown>, depth)
  }
  const complete = walk(value, 0)
  const text = parts.join('')
  return complete ? {text, complete} : {text: text.slice(0, maxChars), complete}
}
