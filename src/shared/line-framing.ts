/**
 * Newline framing in linear time, for every line-delimited peer: the MCP client on stdin, stdio
 * servers' stdout and stderr, a program child's channel. Each chunk is scanned once, and a line
 * split over chunks is joined once, when its newline arrives.
 *
 * A line longer than `maxLineBytes` (its newline not counted) meets the framer's oversize policy:
 * - `skip`: it is not buffered but counted and dropped as it arrives, keeping only its first and
 *   last few KiB (`OversizedLine`), and delivered as `{kind: 'oversized'}` when it ends, so the
 *   sender can be answered by id and the stream goes on;
 * - `fail`: `LineTooLongError` is thrown as soon as the bound is passed, before the newline
 *   arrives, for a peer that must never send one.
 */
import {StringDecoder} from 'node:string_decoder'

import {OversizedLine, type SkippedLine} from './oversized-line.js'

export type OversizePolicy = 'fail' | 'skip'

export type FramedLine<T> = {kind: 'line'; line: T} | (SkippedLine & {kind: 'oversized'})

/** Thrown by a framer with the `fail` policy. */
export class LineTooLongError extends Error {
  constructor(readonly maxLineBytes: number) {
    super(`a line over ${maxLineBytes} bytes`)
    this.name = 'LineTooLongError'
  }
}

const NEWLINE = 0x0a

/** The current line's start, kept until its newline arrives. */
interface Held<T> {
  readonly bytes: number
  add(part: Buffer): void
  /** The whole line, `end` being its last part; then holds nothing. */
  take(end: Buffer): T
  /** Counts what is held into `line`; then holds nothing. */
  moveTo(line: OversizedLine): void
  clear(): void
}

/** As bytes, joined once. */
class HeldBytes implements Held<Buffer> {
  bytes = 0
  // Kept as they came: Node's streams hand out a fresh buffer with every chunk.
  private parts: Buffer[] = []

  add(part: Buffer): void {
    this.parts.push(part)
    this.bytes += part.length
  }

  take(end: Buffer): Buffer {
    const line = this.parts.length === 0 ? end : Buffer.concat([...this.parts, end], this.bytes + end.length)
    this.clear()
    return line
  }

  moveTo(line: OversizedLine): void {
    for (const part of this.parts) line.add(part)
    this.clear()
  }

  clear(): void {
    this.parts = []
    this.bytes = 0
  }
}

/**
 * As text decoded chunk by chunk and appended as a rope, so that a large line is not held as
 * chunks, then as their concatenation, then as its text, all at once. A trailing `\r` is dropped.
 */
class HeldText implements Held<string> {
  bytes = 0
  private pending = ''
  /** Keeps a character split between two chunks whole. */
  private readonly decoder = new StringDecoder('utf8')

  add(part: Buffer): void {
    this.pending += this.decoder.write(part)
    this.bytes += part.length
  }

  take(end: Buffer): string {
    const line = this.bytes === 0 ? end.toString('utf8') : this.pending + this.decoder.end(end)
    this.clear()
    return line.endsWith('\r') ? line.slice(0, -1) : line
  }

  moveTo(line: OversizedLine): void {
    if (this.bytes > 0) line.addText(this.pending, this.bytes)
    this.clear()
  }

  clear(): void {
    this.pending = ''
    this.bytes = 0
    this.decoder.end()
  }
}

export class LineFramer<T extends Buffer | string> {
  /** Set while skipping the rest of a line over the bound. */
  private skipping: OversizedLine | undefined

  private constructor(
    private readonly held: Held<T>,
    private readonly maxLineBytes: number,
    private readonly oversize: OversizePolicy,
  ) {}

  /** Lines as UTF-8 text, without a trailing `\r`. */
  static text(maxLineBytes: number, oversize: OversizePolicy): LineFramer<string> {
    return new LineFramer(new HeldText(), maxLineBytes, oversize)
  }

  /** Lines as bytes, exactly as sent. */
  static bytes(maxLineBytes: number, oversize: OversizePolicy): LineFramer<Buffer> {
    return new LineFramer(new HeldBytes(), maxLineBytes, oversize)
  }

  /** Calls `onLine` for every line `chunk` completes, in order. */
  push(chunk: Buffer, onLine: (line: FramedLine<T>) => void): void {
    let start = 0
    let newline = chunk.indexOf(NEWLINE)
    while (newline !== -1) {
      const end = chunk.subarray(start, newline)
      if (this.skipping || this.over(end)) {
        this.skip(end)
        onLine(this.endSkipping())
      } else onLine({kind: 'line', line: this.held.take(end)})
      start = newline + 1
      newline = chunk.indexOf(NEWLINE, start)
    }
    if (start === chunk.length) return
    const rest = chunk.subarray(start)
    if (this.skipping || this.over(rest)) this.skip(rest)
    else this.held.add(rest)
  }

  /** The stream has ended: a last line without its newline, if any, is delivered. */
  end(onLine: (line: FramedLine<T>) => void): void {
    if (this.skipping) onLine(this.endSkipping())
    else if (this.held.bytes > 0) onLine({kind: 'line', line: this.held.take(Buffer.alloc(0))})
  }

  /** Forgets the line in progress. */
  clear(): void {
    this.held.clear()
    this.skipping = undefined
  }

  /** Whether `part` takes the current line over the bound (which the `fail` policy refuses). */
  private over(part: Buffer): boolean {
    if (this.held.bytes + part.length <= this.maxLineBytes) return false
    if (this.oversize === 'fail') throw new LineTooLongError(this.maxLineBytes)
    return true
  }

  /** Counts `part` into the line being skipped, starting to skip (and dropping what is held) if need be. */
  private skip(part: Buffer): void {
    if (!this.skipping) {
      this.skipping = new OversizedLine()
      this.held.moveTo(this.skipping)
    }
    this.skipping.add(part)
  }

  private endSkipping(): FramedLine<T> {
    const skipped = this.skipping!.finish()
    this.skipping = undefined
    return {kind: 'oversized', ...skipped}
  }
}
