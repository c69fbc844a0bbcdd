/**
 * A JSON value shortened so that its JSON text (`JSON.stringify`, compact) is at most `maxChars`
 * characters: long strings keep their start and end in `…`, arrays and objects keep what fits and
 * end with a count of what was left out (`"…(+12 items)"`, `"…": "+3 keys"`). Small parts are kept
 * whole before large ones are cut, so `{path, content}` keeps its path whatever the order.
 *
 * The walk costs at most about `maxChars` per level, whatever the size of the value: a megabyte
 * string is sliced, never serialised, and deep nesting is cut at the budget. Used for the trace
 * arguments kept in memory and returned in structured content (SPEC §5, §15).
 */
export function shortenJson(value: unknown, maxChars: number): unknown {
  const budget = Math.max(MIN_CHARS, Math.floor(maxChars))
  return jsonLength(value, budget) <= budget ? value : shorten(value, budget)
}

const ELLIPSIS = '…'
/** `"…"`: the smallest stand-in for any value that does not fit. */
const MIN_CHARS = 3
/** An array item is left out (and counted) rather than cut shorter than this. */
const MIN_USEFUL_ITEM_CHARS = 24
/** An object's value is left out (and counted) rather than cut shorter than this. */
const MIN_USEFUL_VALUE_CHARS = 12
/** An array item that must be cut gets at least this fraction of the budget (or it is left out). */
const USEFUL_ITEMS = 4

/**
 * Length of `JSON.stringify(value)` when it is at most `limit`; any number above `limit` otherwise.
 * Values JSON cannot hold count as `null`, as JSON.stringify writes them inside arrays.
 */
export function jsonLength(value: unknown, limit: number): number {
  if (limit < 1) return Math.max(0, limit) + 1
  if (typeof value === 'string') {
    if (value.length + 2 > limit) return limit + 1
    return JSON.stringify(value).length
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(JSON.stringify(value)).length
  if (value === null || typeof value !== 'object') return 4
  let total = 1
  if (Array.isArray(value)) {
    for (const item of value) {
      total += 1 + jsonLength(item, limit - total)
      if (total > limit) return limit + 1
    }
  } else {
    for (const [key, item] of Object.entries(value)) {
      total += 2 + jsonLength(key, limit - total) + jsonLength(item, limit - total)
      if (total > limit) return limit + 1
    }
  }
  return Math.max(2, total)
}

function shorten(value: unknown, budget: number): unknown {
  if (typeof value === 'string') return shortenString(value, budget)
  if (value === null || typeof value !== 'object') return ELLIPSIS
  if (Array.isArray(value)) return shortenArray(value, budget)
  return shortenObject(value as Record<string, unknown>, budget)
}

function shortenString(text: string, budget: number): string {
  // Start and end kept: a path's file name, a log's last line.
  let keep = Math.max(0, budget - 2 - ELLIPSIS.length)
  for (;;) {
    const head = text.slice(0, Math.ceil((keep * 2) / 3))
    const tail = keep - head.length > 0 ? text.slice(-(keep - head.length)) : ''
    const candidate = withoutBrokenPairs(head) + ELLIPSIS + withoutBrokenPairs(tail, true)
    const {length} = JSON.stringify(candidate)
    if (length <= budget || keep === 0) return candidate
    keep = Math.max(0, keep - (length - budget))
  }
}

/** A cut must not leave half of a surrogate pair at the edge. */
function withoutBrokenPairs(text: string, isTail = false): string {
  if (text === '') return text
  // A lone surrogate's code point is the surrogate itself.
  const edge = (isTail ? text.codePointAt(0) : text.codePointAt(text.length - 1)) ?? 0
  if (!isTail && edge >= 0xd8_00 && edge <= 0xdb_ff) return text.slice(0, -1)
  if (isTail && edge >= 0xdc_00 && edge <= 0xdf_ff) return text.slice(1)
  return text
}

function shortenArray(items: readonly unknown[], budget: number): unknown {
  const marker = (omitted: number) => `${ELLIPSIS}(+${omitted} items)`
  // At most one item per MIN_CHARS + 1 characters can be kept: the rest are only counted.
  const kept = fitEntries(
    items.slice(0, budget).map((item) => ({key: '', value: item})),
    {
      total: items.length,
      keyed: false,
      budget,
      markerLength: (omitted) => JSON.stringify(marker(omitted)).length,
    },
  )
  const out = kept.values.map((entry) => entry.value)
  if (kept.omitted > 0) out.push(marker(kept.omitted))
  return jsonLength(out, budget) <= budget ? out : ELLIPSIS
}

function shortenObject(object: Record<string, unknown>, budget: number): unknown {
  const marker = (omitted: number) => `+${omitted} keys`
  const entries = Object.entries(object).map(([key, value]) => ({key, value}))
  const kept = fitEntries(entries, {
    total: entries.length,
    keyed: true,
    budget,
    markerLength: (omitted) => JSON.stringify(ELLIPSIS).length + 1 + JSON.stringify(marker(omitted)).length,
  })
  const out: Record<string, unknown> = {}
  for (const {key, value} of kept.values) out[key] = value
  if (kept.omitted > 0) out[ELLIPSIS] = marker(kept.omitted)
  return jsonLength(out, budget) <= budget ? out : ELLIPSIS
}

interface Entry {
  key: string
  value: unknown
}

/**
 * Which entries of a container fit in `budget` characters (brackets, keys and commas included),
 * each whole or shortened: entries are kept in order while each can still have at least `"…"`
 * and the count of the rest fits; then the room is shared out smallest first, so small entries
 * stay whole and the large ones share what is left.
 */
function fitEntries(
  entries: readonly Entry[],
  {
    total,
    keyed,
    budget,
    markerLength,
  }: {
    /** How many entries the container has: `entries` may be its first ones only. */
    total: number
    keyed: boolean
    budget: number
    markerLength: (omitted: number) => number
  },
): {values: Entry[]; omitted: number} {
  const keyCost = (entry: Entry) => (keyed ? jsonLength(entry.key, budget) + 1 : 0)
  let count = 0
  // fixedOf[n]: brackets, keys and commas of the first n entries.
  const fixedOf = [2]
  for (const entry of entries) {
    const entryFixed = (count > 0 ? 1 : 0) + keyCost(entry)
    const rest = total - count - 1
    const marker = rest > 0 ? markerLength(rest) + 1 : 0
    if (fixedOf[count]! + entryFixed + MIN_CHARS * (count + 1) + marker > budget) break
    fixedOf.push(fixedOf[count]! + entryFixed)
    count++
  }
  // Items cut to a few characters say nothing: fewer items, each worth reading, and a count.
  const planFor = (n: number) =>
    share(entries, n, {budget, fixed: fixedOf[n]!, markerLength, omitted: total - n})
  const plan = planFor(count)
  // A useful share grows with the budget: a list of records shows a few readable ones and a count,
  // not every record cut to its first key ({"name": "Pro…a", "…": "+2 keys"}).
  // An object's values likewise: fewer keys, each readable, rather than every one cut to `"Pr…a"`.
  const useful = keyed
    ? MIN_USEFUL_VALUE_CHARS
    : Math.max(MIN_USEFUL_ITEM_CHARS, Math.floor(budget / USEFUL_ITEMS))
  const tooShort = (candidate: {sizes: number[]; allowance: number[]}) => cutsTooShort(candidate, useful)
  if (count <= 1 || !tooShort(plan)) return finish(entries, count, total, plan)
  // The most items that each still get a useful share (fewer items, more room each), at least one.
  let low = 1
  let high = count - 1
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (tooShort(planFor(mid))) high = mid - 1
    else low = mid
  }
  return finish(entries, low, total, planFor(low))
}

/** Whether the plan cuts an entry to fewer characters than are worth reading. */
function cutsTooShort({sizes, allowance}: {sizes: number[]; allowance: number[]}, useful: number): boolean {
  return allowance.some((share, index) => sizes[index]! > share && share < useful)
}

function share(
  entries: readonly Entry[],
  count: number,
  {
    budget,
    fixed: fixedOfKept,
    markerLength,
    omitted,
  }: {budget: number; fixed: number; markerLength: (omitted: number) => number; omitted: number},
): {sizes: number[]; allowance: number[]} {
  const fixed = fixedOfKept + (omitted > 0 ? markerLength(omitted) + (count > 0 ? 1 : 0) : 0)
  let room = budget - fixed
  const chosen = entries.slice(0, count)
  const sizes = chosen.map((entry) => jsonLength(entry.value, room))
  // Smallest first: each gets its whole size when that is within its fair share of what is left.
  const order = chosen.map((_, index) => index).sort((a, b) => sizes[a]! - sizes[b]!)
  const allowance: number[] = []
  let left = order.length
  for (const index of order) {
    const size = sizes[index]!
    // A short value is kept whole while the others can still have `"…"`; a long one gets its share.
    const whole = size <= MIN_USEFUL_ITEM_CHARS && room - size >= MIN_CHARS * (left - 1)
    allowance[index] = whole ? size : Math.min(size, Math.floor(room / left))
    room -= allowance[index]
    left--
  }
  return {sizes, allowance}
}

function finish(
  entries: readonly Entry[],
  count: number,
  total: number,
  {sizes, allowance}: {sizes: number[]; allowance: number[]},
): {values: Entry[]; omitted: number} {
  const chosen = entries.slice(0, count)
  return {
    values: chosen.map((entry, index) => ({
      key: entry.key,
      value: sizes[index]! <= allowance[index]! ? entry.value : shorten(entry.value, allowance[index]!),
    })),
    omitted: total - count,
  }
}
