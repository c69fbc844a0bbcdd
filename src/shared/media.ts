/**
 * Media (image, audio, embedded resource) of a tool result, below both the result parser that makes
 * it and the child's channel that recognises it: one home for the class and its sizes.
 */
import {isRecord} from './guards.js'

/**
 * Image, audio or embedded-resource content of a result, as it travels to the program's child,
 * which makes it a `Media` object (SPEC §14). A class, so that the child's channel can tell the
 * parser's entries from a server's own `_media` key; it serialises as a plain object.
 */
export class MediaContent {
  readonly type: 'image' | 'audio' | 'resource'
  readonly mime_type: string | null
  /** Bytes of the content (decoded base64, or the UTF-8 of a text resource). */
  readonly size: number
  readonly data?: string
  readonly text?: string
  readonly uri?: string

  constructor(fields: {
    type: MediaContent['type']
    mimeType: string | undefined
    data?: string
    text?: string
    uri?: string
  }) {
    this.type = fields.type
    this.mime_type = fields.mimeType ?? null
    if (fields.data !== undefined) this.data = fields.data
    if (fields.text !== undefined) this.text = fields.text
    if (fields.uri !== undefined) this.uri = fields.uri
    this.size =
      fields.data === undefined ? Buffer.byteLength(fields.text ?? '', 'utf8') : base64Size(fields.data)
  }
}

/** Whether a parsed value carries `Media` entries made by `parseToolResult`. */
export function hasMedia(value: unknown): boolean {
  return isRecord(value) && Array.isArray(value['_media']) && value['_media'][0] instanceof MediaContent
}

/** What a Media entry costs in the result: its base64 data, or a text resource's UTF-8. */
export function mediaBytes(entry: MediaContent): number {
  return entry.data === undefined ? entry.size : entry.data.length
}

/** Decoded length of a base64 string (whitespace ignored). */
export function base64Size(data: string): number {
  const compact = data.replaceAll(/\s+/g, '')
  const padding = compact.endsWith('==') ? 2 : Number(compact.endsWith('='))
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding)
}
