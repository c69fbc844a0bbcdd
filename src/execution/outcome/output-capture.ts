import {closeSync, constants, openSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {shownPath} from '../files/artifacts.js'

/** A new file, never through a link. */
// eslint-disable-next-line no-bitwise -- open flags are bit patterns
const SPILL_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/**
 * The note on output over the cap (SPEC §8), naming the whole output's file: the first line of the
 * cut output (a client that previews only the start of a result still shows it) and the line
 * between its head and its tail.
 */
export function omittedMarker(bytes: number, wholeOutput?: string): string {
  return wholeOutput === undefined
    ? `... [${bytes} bytes omitted]`
    : `... [${bytes} bytes omitted: the whole output is in ${wholeOutput}]`
}

/** Where output over the cap is kept whole (SPEC §14): a new directory for the run, made on demand. */
export interface OutputSpill {
  runDir(): string
  /** Most bytes written to the file; beyond, it keeps the start and says so. */
  maxBytes: number
}

/** A cut moves to a line boundary when one is this close (a fraction of the part kept). */
const LINE_SEARCH_FRACTION = 0.25

/**
 * Collects what a child writes to fd 1 and fd 2, keeping at most `maxBytes` (UTF-8 bytes as
 * written): its head and its tail, half each, when there is more (SPEC §8). What falls between is
 * read and dropped so the child never blocks on a full pipe; only its size is kept.
 */
export class OutputCapture {
  private readonly head: Buffer[] = []
  private headBytes = 0
  /** The latest chunks, at least `tailRoom` bytes of them once that much came after the head. */
  private readonly tail: Buffer[] = []
  private tailBytes = 0
  private total = 0
  /** The last byte before the kept tail chunks, once some were dropped. */
  private beforeTail: number | undefined
  private readonly headRoom: number
  private readonly tailRoom: number

  /** Everything written, while it fits the cap: what the spill file starts with. */
  private early: Buffer[] | undefined = []
  private spillFd: number | undefined
  private spillPath: string | undefined
  private spilled = 0

  constructor(
    private readonly maxBytes: number,
    private readonly spill?: OutputSpill,
  ) {
    this.headRoom = Math.ceil(maxBytes / 2)
    this.tailRoom = maxBytes - this.headRoom
  }

  write(chunk: Buffer): void {
    this.total += chunk.length
    if (this.spill) this.keepWhole(chunk, this.spill)
    let rest = chunk
    if (this.headBytes < this.headRoom) {
      const piece = rest.subarray(0, this.headRoom - this.headBytes)
      this.head.push(Buffer.from(piece))
      this.headBytes += piece.length
      rest = rest.subarray(piece.length)
    }
    if (rest.length === 0 || this.tailRoom === 0) return
    this.tail.push(Buffer.from(rest))
    this.tailBytes += rest.length
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.tailRoom) {
      const dropped = this.tail.shift()!
      this.tailBytes -= dropped.length
      this.beforeTail = dropped.at(-1)
    }
  }

  /** Keeps the output whole in a file once it goes over the cap. */
  private keepWhole(chunk: Buffer, spill: OutputSpill): void {
    if (this.early) {
      this.early.push(Buffer.from(chunk))
      if (this.total <= this.maxBytes) return
      const {early} = this
      this.early = undefined
      try {
        const path = join(spill.runDir(), 'output.txt')
        this.spillFd = openSync(path, SPILL_FLAGS, 0o600)
        this.spillPath = shownPath(path)
        for (const part of early) this.writeSpill(part, spill)
      } catch {
        this.closeSpill()
      }
      return
    }
    if (this.spillFd !== undefined) this.writeSpill(chunk, spill)
  }

  private writeSpill(chunk: Buffer, spill: OutputSpill): void {
    const room = spill.maxBytes - this.spilled
    if (room <= 0 || this.spillFd === undefined) return
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk
    try {
      let offset = 0
      while (offset < piece.length) offset += writeSync(this.spillFd, piece, offset)
      this.spilled += piece.length
    } catch {
      this.closeSpill()
      this.spillPath = undefined
    }
  }

  private closeSpill(): void {
    if (this.spillFd === undefined) return
    try {
      closeSync(this.spillFd)
    } catch {
      // already closed
    }
    this.spillFd = undefined
  }

  /** The file holding the whole output (or its first `maxBytes`), once output went over the cap. */
  get wholeOutputPath(): string | undefined {
    return this.spillPath
  }

  get truncated(): boolean {
    return this.total > this.maxBytes
  }

  /** Bytes written in total, kept or not. */
  get totalBytes(): number {
    return this.total
  }

  text(): string {
    this.closeSpill()
    if (!this.truncated) return Buffer.concat([...this.head, ...this.tail]).toString('utf8')
    const {head, tail} = this.parts()
    const omitted = this.total - Buffer.byteLength(head) - Buffer.byteLength(tail)
    let whole = this.spillPath
    if (whole !== undefined && this.spilled < this.total) whole = `${whole} (its first ${this.spilled} bytes)`
    const marker = omittedMarker(omitted, whole)
    return `${marker}\n${head}${head === '' || head.endsWith('\n') ? '' : '\n'}${marker}\n${tail}`
  }

  /** The head cut back to a line end, and the tail from a line start, where one is near. */
  private parts(): {head: string; tail: string} {
    const head = Buffer.concat(this.head, this.headBytes)
    const allTail = Buffer.concat(this.tail, this.tailBytes)
    const tail = allTail.subarray(Math.max(0, allTail.length - this.tailRoom))
    let headEnd = utf8SafeEnd(head)
    const lastNewline = head.lastIndexOf(NEWLINE, headEnd - 1)
    if (lastNewline !== -1 && headEnd - lastNewline - 1 <= head.length * LINE_SEARCH_FRACTION)
      headEnd = lastNewline + 1
    let tailStart = utf8SafeStart(tail)
    // A tail that starts right after a newline already starts a line.
    const before =
      allTail.length > tail.length
        ? allTail[allTail.length - tail.length - 1]
        : (this.beforeTail ?? head.at(-1))
    const startsLine = before === NEWLINE
    if (!startsLine) {
      const firstNewline = tail.indexOf(NEWLINE, tailStart)
      if (firstNewline !== -1 && firstNewline + 1 - tailStart <= tail.length * LINE_SEARCH_FRACTION)
        tailStart = firstNewline + 1
    }
    return {head: head.subarray(0, headEnd).toString('utf8'), tail: tail.subarray(tailStart).toString('utf8')}
  }
}

const NEWLINE = 10

/** Index of the first byte of `bytes` that is not a UTF-8 continuation byte (at most 3 skipped). */
export function utf8SafeStart(bytes: Uint8Array): number {
  let start = 0
  // eslint-disable-next-line no-bitwise -- a continuation byte is a bit pattern
  while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & CONTINUATION_MASK) === CONTINUATION)
    start++
  return start
}

// UTF-8 byte patterns (binary literals: prettier and the linter disagree on hex digit case).
const CONTINUATION_MASK = 0b1100_0000
const CONTINUATION = 0b1000_0000
const LEAD_2 = 0b1100_0000
const LEAD_3 = 0b1110_0000
const LEAD_4 = 0b1111_0000

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function utf8SafeEnd(bytes: Uint8Array): number {
  let lead = bytes.length - 1
  let continuation = 0
  // eslint-disable-next-line no-bitwise -- a continuation byte is a bit pattern
  while (lead >= 0 && continuation < 3 && ((bytes[lead] ?? 0) & CONTINUATION_MASK) === CONTINUATION) {
    lead--
    continuation++
  }
  if (lead < 0) return bytes.length
  const first = bytes[lead] ?? 0
  let needed = 1
  if (first >= LEAD_4) needed = 4
  else if (first >= LEAD_3) needed = 3
  else if (first >= LEAD_2) needed = 2
  return bytes.length - lead >= needed ? bytes.length : lead
}

/**
 * The program's stdout as it arrives, holding back its last bytes until it is known whether they
 * are the run's end marker: the runner writes the marker after its final flush, so a stream that
 * ends with it is complete even while a wrapper process (bwrap) still holds the pipe open.
 */
export class EndMarkedStream {
  private tail = Buffer.alloc(0)

  constructor(
    private readonly marker: Buffer,
    private readonly sink: (chunk: Buffer) => void,
  ) {}

  write(chunk: Buffer): void {
    const joined = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk])
    // Held back: only what may be the start of the marker, so output is passed on as it comes.
    const held = this.markerStartLength(joined)
    if (joined.length > held) this.sink(joined.subarray(0, joined.length - held))
    this.tail = Buffer.from(joined.subarray(joined.length - held))
  }

  /** The length of the longest end of `bytes` that the marker starts with (the whole marker included). */
  private markerStartLength(bytes: Buffer): number {
    const {marker} = this
    const first = marker[0]
    for (let start = Math.max(0, bytes.length - marker.length); start < bytes.length; start++) {
      if (bytes[start] !== first) continue
      const end = bytes.subarray(start)
      if (marker.subarray(0, end.length).equals(end)) return end.length
    }
    return 0
  }

  get endsWithMarker(): boolean {
    return this.tail.equals(this.marker)
  }

  /** Releases what was held back, unless it is the marker. */
  flush(): void {
    if (!this.endsWithMarker && this.tail.length > 0) this.sink(this.tail)
    this.tail = Buffer.alloc(0)
  }
}
