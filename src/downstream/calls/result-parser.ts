/**
 * Turns a downstream `tools/call` result into the value a program receives (SPEC §6 "Results are
 * parsed JSON"). Pure: no SDK imports, so it serves both protocol eras and the tests alike.
 *
 * `isError` results are not this module's concern: the caller raises `ToolError` for them (see
 * `toolErrorText`) before parsing.
 */

/** One content item, as much of it as result parsing looks at. */
export interface ToolResultContentItem {
  type: string
  text?: string
  mimeType?: string
  /** `resource_link` items carry their uri and name at the top level. */
  uri?: string
  name?: string
  /** `resource` items embed the resource. */
  resource?: {uri?: string; mimeType?: string; text?: string; blob?: string}
}

/** The shape of a `CallToolResult` from either SDK, without depending on their internals. */
export interface ToolCallResultLike {
  content?: readonly ToolResultContentItem[]
  structuredContent?: unknown
  isError?: boolean
}

import {formatBytes} from '../../shared/byte-size.js'
import {isRecord} from '../../shared/guards.js'
import {mediaBytes, MediaContent} from '../../shared/media.js'

export {hasMedia, MediaContent} from '../../shared/media.js'

type JsonObject = {[key: string]: unknown}

const NOT_JSON = Symbol('not JSON')

/** How much media a result may carry to the program (SPEC §6, §14). */
export interface MediaBudget {
  /** Bytes of media (as it travels: base64, or a text resource's UTF-8) the value may still carry. */
  bytes: number
  /** execution.max_tool_result_bytes, named in the note left for media that did not fit. */
  limit: number
}

/**
 * The value a program receives for a successful tool result. Notes about text that is not the
 * value travel in a `_notes` list; image, audio and embedded-resource content in a `_media` list.
 */
export function parseToolResult(result: ToolCallResultLike, budget?: MediaBudget): unknown {
  const content = result.content ?? []
  const texts: string[] = []
  const media: MediaContent[] = []
  const omitted: string[] = []
  let room = budget?.bytes ?? Infinity
  // Rule: image, audio and embedded resources become Media (SPEC §14); other non-text content
  // (a resource_link, an item missing its data) is named in a note. Media that does not fit in
  // what is left of max_tool_result_bytes, in content order, is a placeholder note: the text stays.
  for (const item of content) {
    if (item.type === 'text' && typeof item.text === 'string') texts.push(item.text)
    else {
      const entry = toMedia(item)
      if (!entry) omitted.push(describeOmittedContent(item))
      else if (mediaBytes(entry) <= room) {
        room -= mediaBytes(entry)
        media.push(entry)
      } else omitted.push(describeOversizedMedia(item, entry, budget!.limit))
    }
  }

  const structured = result.structuredContent
  // Rule: structuredContent is used when it is an object; any other value breaks the protocol and is ignored.
  const parsed = isRecord(structured) ? fromStructured(structured, texts) : fromTexts(texts)
  return withNotes(parsed.value, [...parsed.notes, ...omitted], media)
}

function toMedia(item: ToolResultContentItem): MediaContent | undefined {
  const raw = item as ToolResultContentItem & {data?: unknown}
  if ((item.type === 'image' || item.type === 'audio') && typeof raw.data === 'string') {
    return new MediaContent({type: item.type, mimeType: stringOr(item.mimeType), data: raw.data})
  }
  const resource = item.type === 'resource' && isRecord(item.resource) ? item.resource : undefined
  if (!resource) return undefined
  const common = {
    type: 'resource' as const,
    mimeType: stringOr(resource.mimeType),
    uri: stringOr(resource.uri),
  }
  if (typeof resource.text === 'string') return new MediaContent({...common, text: resource.text})
  if (typeof resource.blob === 'string') return new MediaContent({...common, data: resource.blob})
  return undefined
}

/** `[non-text content omitted: image (image/png), 20 MiB: over the 16 MiB limit (execution.max_tool_result_bytes)]` */
function describeOversizedMedia(item: ToolResultContentItem, entry: MediaContent, limit: number): string {
  return `${describeOmittedContent(item).slice(0, -1)}, ${formatBytes(entry.size)}: over the ${formatBytes(limit)} limit (execution.max_tool_result_bytes)]`
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

/**
 * The text of a result that is exactly one text item and nothing else (no other content, no
 * structured content object), whose value is that text's JSON when it parses, else the text: the
 * caller may leave that parsing to whoever receives the value. Undefined for any other result.
 */
export function loneText(result: ToolCallResultLike): string | undefined {
  const content = result.content ?? []
  const [item] = content
  if (content.length !== 1 || item?.type !== 'text' || typeof item.text !== 'string') return undefined
  return isRecord(result.structuredContent) ? undefined : item.text
}

/** The text to put in a `ToolError` for an `isError` result: the server's own words. */
export function toolErrorText(result: ToolCallResultLike): string {
  const parts = (result.content ?? []).map((item) =>
    item.type === 'text' && typeof item.text === 'string' ? item.text : describeOmittedContent(item),
  )
  const text = parts.join('\n').trim()
  if (text) return text
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return '(the server gave no error message)'
}

/** The note left in place of non-text content, e.g. `[non-text content omitted: image (image/png)]`. */
export function describeOmittedContent(item: ToolResultContentItem): string {
  const type = typeof item.type === 'string' && item.type ? item.type : 'unknown'
  const uri = item.resource?.uri ?? item.uri
  const mimeType = item.resource?.mimeType ?? item.mimeType
  const details = [uri, mimeType].filter((d): d is string => typeof d === 'string' && d !== '')
  return `[non-text content omitted: ${type}${details.length > 0 ? ` (${details.join(', ')})` : ''}]`
}

interface ParsedValue {
  value: unknown
  notes: string[]
}

function fromStructured(structured: JsonObject, texts: readonly string[]): ParsedValue {
  const parsedTexts = texts.map((text) => ({text, json: parseJson(text)}))
  // Rule: a text item that is the JSON rendering of structuredContent (compared as parsed JSON, so
  // whitespace and key order do not matter) is the genuine object, never a wrapper.
  const isRenderingOfWhole = (t: {json: unknown}) => t.json !== NOT_JSON && jsonEqual(t.json, structured)
  const keys = Object.keys(structured)
  const isWrapper = keys.length === 1 && keys[0] === 'result' && !parsedTexts.some(isRenderingOfWhole)

  if (!isWrapper) {
    // Rule: text that repeats the value is not a note: its JSON in any formatting, the JSON of one
    // of its fields (a server rendering `{entities: [...]}` as the list), or the text of one of its
    // string fields (`{content: text}` with the same text). Any other text is kept as a note.
    const fields = Object.values(structured)
    const repeatsValue = (t: {text: string; json: unknown}) =>
      isRenderingOfWhole(t) ||
      fields.some((field) => field === t.text || (t.json !== NOT_JSON && jsonEqual(t.json, field)))
    return {value: structured, notes: parsedTexts.filter((t) => !repeatsValue(t)).map((t) => t.text)}
  }

  // Rule: the FastMCP wrapper {"result": v} is unwrapped, and v JSON-decoded when it is a string that parses.
  const inner = structured['result']
  const decoded = typeof inner === 'string' ? parseJson(inner) : NOT_JSON
  const value = decoded === NOT_JSON ? inner : decoded
  // FastMCP renders v itself as text: a string as is, anything else as JSON, and a list one item
  // per element. Such renderings are the value again, not notes.
  const renderings = [inner, value, ...(Array.isArray(inner) ? inner : [])]
  const isRenderingOfValue = (t: {text: string; json: unknown}) =>
    renderings.some((r) => t.text === r || (t.json !== NOT_JSON && jsonEqual(t.json, r)))
  return {value, notes: parsedTexts.filter((t) => !isRenderingOfValue(t)).map((t) => t.text)}
}

function fromTexts(texts: readonly string[]): ParsedValue {
  // Rule: no content → null (Python None).
  const [first] = texts
  if (first === undefined) return {value: null, notes: []}
  // Rule: one text item → its JSON if it parses, else the string.
  if (texts.length === 1) return {value: jsonOrString(first), notes: []}
  // Rule: several text items, exactly one of which parses as JSON → that value; the others become notes.
  const parsed = texts.map((text) => ({text, json: parseJson(text)}))
  const json = parsed.filter((t) => t.json !== NOT_JSON)
  const [only] = json
  if (json.length === 1 && only) {
    return {value: only.json, notes: parsed.filter((t) => t !== only).map((t) => t.text)}
  }
  // Rule: otherwise the texts joined by newlines, then JSON if that parses, else the string.
  return {value: jsonOrString(texts.join('\n')), notes: []}
}

/**
 * Attaches notes (text notes first, then omitted content, each in content order) and media. Rule:
 * a plain object carries them as `_notes` and `_media`; any other value (array, string, number,
 * boolean, null), or an object that already has its own `_notes` or `_media` key, is wrapped as
 * `{"data": value, "_notes": [...], "_media": [...]}` (each list only when it has entries). So an
 * image-only result becomes `{"data": null, "_media": [<image>]}`.
 */
function withNotes(value: unknown, notes: readonly string[], media: readonly MediaContent[]): unknown {
  if (notes.length === 0 && media.length === 0) return value
  const extra = {...(notes.length > 0 && {_notes: [...notes]}), ...(media.length > 0 && {_media: [...media]})}
  if (isRecord(value) && !Object.hasOwn(value, '_notes') && !Object.hasOwn(value, '_media')) {
    return {...value, ...extra}
  }
  return {data: value, ...extra}
}

function jsonOrString(text: string): unknown {
  const json = parseJson(text)
  return json === NOT_JSON ? text : json
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return NOT_JSON
  }
}

/** Deep equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a)
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
    )
  }
  return false
}
