/**
 * A JSON-RPC line over the size limit, on either side (a client's request to `serve`, a downstream
 * server's result): it is not buffered but counted and dropped, and only its first and last few
 * KiB are kept, enough to find its id and answer it with an error instead of dropping the
 * connection.
 */
import type {RequestId} from '@modelcontextprotocol/client'

import {isRecord} from './guards.js'

/** How much of an oversized line is kept, at its start and at its end. */
export const KEPT_EDGE_BYTES = 4096

export interface SkippedLine {
  bytes: number
  head: string
  tail: string
}

export class OversizedLine {
  bytes = 0
  private head = Buffer.alloc(0)
  private tail = Buffer.alloc(0)

  /** Counts `part` and keeps what the edges need of it (copied: the stream may reuse its memory). */
  add(part: Buffer): void {
    this.bytes += part.length
    this.keepEdges(part)
  }

  /** The same for text already decoded, `bytes` long in UTF-8: only its edges are encoded again. */
  addText(text: string, bytes: number): void {
    this.bytes += bytes
    if (text.length <= KEPT_EDGE_BYTES) {
      this.keepEdges(Buffer.from(text, 'utf8'))
      return
    }
    // Each slice is at least KEPT_EDGE_BYTES long in UTF-8, so the head comes from the first and
    // the tail from the second, overlapping or not.
    this.keepEdges(Buffer.from(text.slice(0, KEPT_EDGE_BYTES), 'utf8'))
    this.keepEdges(Buffer.from(text.slice(-KEPT_EDGE_BYTES), 'utf8'))
  }

  private keepEdges(part: Buffer): void {
    if (this.head.length < KEPT_EDGE_BYTES)
      this.head = Buffer.concat([this.head, part.subarray(0, KEPT_EDGE_BYTES - this.head.length)])
    this.tail = Buffer.from(
      part.length >= KEPT_EDGE_BYTES
        ? lastBytes(part, KEPT_EDGE_BYTES)
        : lastBytes(Buffer.concat([this.tail, part]), KEPT_EDGE_BYTES),
    )
  }

  finish(): SkippedLine {
    const text = (buffer: Buffer) => buffer.toString('utf8').replace(/\r$/, '')
    return {bytes: this.bytes, head: text(this.head), tail: text(this.tail)}
  }
}

function lastBytes(buffer: Buffer, count: number): Buffer {
  return buffer.length <= count ? buffer : buffer.subarray(buffer.length - count)
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
/** `{"jsonrpc":"2.0","id":7,...` (Python SDK order) */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`)
/** `...,"jsonrpc":"2.0","id":7}` (TypeScript SDK order) */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`)

/** The id of a message too large to parse, from where SDKs put it: first or last. */
export function idOfSkipped(line: SkippedLine): RequestId | undefined {
  const match = ID_AT_START.exec(line.head) ?? ID_AT_END.exec(line.tail)
  if (!match?.[1]) return undefined
  return requestId(parseOrUndefined(`{"id":${match[1]}}`))
}

/**
 * Whether the message is a request or a notification (it has a top-level `method`) rather than a
 * response. Every SDK writes `method` within the first few members, so the head is enough: its
 * top-level keys are read, skipping strings and nested values.
 */
export function isCallHead(head: string): boolean {
  let depth = 0
  let key: string | undefined
  for (let at = 0; at < head.length; at++) {
    switch (head[at]) {
      case '"': {
        const end = stringEnd(head, at)
        if (end === -1) return false
        if (depth === 1) key = head.slice(at + 1, end)
        at = end
        break
      }
      case ':': {
        if (depth === 1 && key === 'method') return true
        break
      }
      case '{':
      case '[': {
        depth++
        key = undefined
        break
      }
      case '}':
      case ']': {
        depth--
        break
      }
      case ',': {
        key = undefined
        break
      }
      default:
    }
  }
  return false
}

function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === '\\') at++
    else if (text[at] === '"') return at
  }
  return -1
}

export function requestId(value: unknown): RequestId | undefined {
  if (!isRecord(value)) return undefined
  const {id} = value
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined
}

/** The JSON value of `text`, or undefined when it is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
