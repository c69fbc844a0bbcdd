import {cutAfter} from '../../shared/cut.js'
/**
 * The shape of a tool's result as `inspect_tool` shows it under `observed_result` (SPEC §5): types,
 * keys and list lengths, never values unless samples are asked for. A JSON value whose shape is
 * the same JSON structure with every leaf replaced by its Python type name:
 *
 *   {"statements": ["list of 8", {"quarter": "str", "revenue": "int"}], "ticker": "str"}
 *
 * A text-only result is described as text: "free text, 12 lines", or the shape of its JSON when
 * the text parses. Keys are the server's data, not ours: a key that is not a plain name (letters,
 * digits, `_-.$@`, at most MAX_PLAIN_KEY_CHARS) is shown quoted and cut, as a sample is (a 400 KB
 * key reading "IMPORTANT SYSTEM NOTE TO THE ASSISTANT..." is `'IMPORTANT SYSTEM NOTE TO…'`). A
 * shape is at most MAX_SHAPE_CHARS of JSON: a bigger one is described again less deeply.
 */
import {isRecord} from '../../shared/guards.js'
import {counted} from '../../shared/plural.js'

const MAX_DEPTH = 5
const MAX_KEYS = 30
/** List items whose keys are merged into the shape of the items. */
const MAX_ITEMS_LOOKED_AT = 20
const MAX_SAMPLE_CHARS = 40
/** Longest key shown as it is; longer ones, and any with other characters, are quoted and cut. */
const MAX_PLAIN_KEY_CHARS = 40
const PLAIN_KEY = new RegExp(`^[\\p{L}\\p{N}_$@.-]{1,${MAX_PLAIN_KEY_CHARS}}$`, 'u')
/** Largest shape, as JSON: a bigger one is described again with less depth. */
export const MAX_SHAPE_CHARS = 4096

export interface ShapeOptions {
  /** Add a short sample to each leaf (`"str, e.g. 'ACME'"`): execution.record_samples. */
  samples?: boolean
}

/** The shape of a parsed result value (what the program received), within MAX_SHAPE_CHARS. */
export function shapeOf(value: unknown, options: ShapeOptions = {}): unknown {
  for (let depth = MAX_DEPTH; depth > 0; depth--) {
    const described = shape(value, MAX_DEPTH - depth, options.samples === true)
    if (JSON.stringify(described).length <= MAX_SHAPE_CHARS) return described
  }
  return leafType(value)
}

/** A key as the shape shows it: a plain name as it is, anything else quoted and cut. */
export function shownKey(key: string): string {
  return PLAIN_KEY.test(key) ? key : sample(key)
}

/** The shape of a text-only result: its JSON's shape when it parses, else `free text, N lines`. */
export function textShape(text: string, options: ShapeOptions = {}): unknown {
  const head = text.trimStart()[0]
  if (head !== undefined && '{["-0123456789tfn'.includes(head)) {
    try {
      return shapeOf(JSON.parse(text) as unknown, options)
    } catch {
      // prose that starts like JSON
    }
  }
  return freeText(text, options.samples === true)
}

function freeText(text: string, samples: boolean): string {
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  const described = `free text, ${counted(lines, 'line')}`
  return samples ? `${described}, e.g. ${sample(text.split('\n', 1)[0] ?? '')}` : described
}

function shape(value: unknown, depth: number, samples: boolean): unknown {
  if (Array.isArray(value)) {
    const label = `list of ${value.length}`
    if (value.length === 0 || depth >= MAX_DEPTH) return [label]
    return [label, itemShape(value, depth, samples)]
  }
  if (isRecord(value)) {
    if (depth >= MAX_DEPTH) return 'dict'
    const keys = Object.keys(value)
    const out: Record<string, unknown> = {}
    for (const key of keys.slice(0, MAX_KEYS)) out[shownKey(key)] = shape(value[key], depth + 1, samples)
    if (keys.length > MAX_KEYS) out['…'] = `+${keys.length - MAX_KEYS} keys`
    return out
  }
  return leaf(value, samples)
}

/** The items' shape: dicts merged key by key over the first items, else the first item's shape. */
function itemShape(items: readonly unknown[], depth: number, samples: boolean): unknown {
  const looked = items.slice(0, MAX_ITEMS_LOOKED_AT)
  if (!looked.every((item) => isRecord(item))) {
    const kinds = new Set(looked.map((item) => leafType(item)))
    const first = shape(items[0], depth + 1, samples)
    return kinds.size === 1 ? first : `mixed: ${[...kinds].join(' | ')}`
  }
  const merged: Record<string, unknown> = {}
  for (const item of looked as Record<string, unknown>[]) {
    for (const [key, field] of Object.entries(item)) {
      if (!Object.hasOwn(merged, key)) merged[key] = field
    }
  }
  return shape(merged, depth + 1, samples)
}

function leafType(value: unknown): string {
  if (value === null || value === undefined) return 'None'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float'
  if (typeof value === 'string') return 'str'
  if (Array.isArray(value)) return 'list'
  return 'dict'
}

function leaf(value: unknown, samples: boolean): string {
  const type = leafType(value)
  if (!samples || value === null || value === undefined) return type
  return `${type}, e.g. ${typeof value === 'string' ? sample(value) : String(value)}`
}

/** A Python-style quoted sample, cut short. */
function sample(text: string): string {
  const short = cutAfter(text, MAX_SAMPLE_CHARS)
  return `'${short.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n')}'`
}

/** Longest return type read from an observed shape; keys past it become `...`. */
export const MAX_SHAPE_TYPE_CHARS = 200
/** Dicts nested deeper than this are shown as `dict`. */
const MAX_SHAPE_TYPE_DEPTH = 3

/**
 * The Python return type a shape implies, for the signature: `{"content": str}`,
 * `{"entities": list[{"name": str, ...}]}`, `list[dict]`, `str`... within MAX_SHAPE_TYPE_CHARS.
 */
export function shapeReturnType(observed: unknown, depth = 0, maxChars = MAX_SHAPE_TYPE_CHARS): string {
  if (Array.isArray(observed)) {
    const [, item] = observed
    if (item === undefined) return 'list'
    const inner = shapeReturnType(item, depth + 1, maxChars - 'list[]'.length)
    return inner === 'Any' ? 'list' : `list[${inner}]`
  }
  if (isRecord(observed)) return dictType(observed, depth, maxChars)
  if (typeof observed !== 'string') return 'Any'
  if (observed.startsWith('free text')) return 'str'
  const type = observed.split(',', 1)[0]!
  return ['bool', 'dict', 'float', 'int', 'list', 'None', 'str'].includes(type) ? type : 'Any'
}

/** `{"key": T, ...}`: the keys that fit in `maxChars`; `dict` when none does, or nested too deep. */
function dictType(observed: Record<string, unknown>, depth: number, maxChars: number): string {
  const keys = Object.keys(observed).filter((key) => key !== '…')
  const more = keys.length < Object.keys(observed).length
  if (keys.length === 0 || depth >= MAX_SHAPE_TYPE_DEPTH) return 'dict'
  const parts: string[] = []
  let length = 2
  for (const key of keys) {
    const room = maxChars - length - JSON.stringify(key).length - 2
    const part = `${JSON.stringify(key)}: ${shapeReturnType(observed[key], depth + 1, room)}`
    const tail = parts.length + 1 < keys.length || more ? ', ...'.length : 0
    if (length + part.length + (parts.length > 0 ? 2 : 0) + tail > maxChars) break
    length += part.length + (parts.length > 0 ? 2 : 0)
    parts.push(part)
  }
  if (parts.length === 0) return 'dict'
  return `{${parts.join(', ')}${parts.length < keys.length || more ? ', ...' : ''}}`
}
