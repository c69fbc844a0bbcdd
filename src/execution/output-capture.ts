/** Marker appended when the output was cut (SPEC §7). */
export const TRUNCATION_MARKER = '... (truncated)'

/**
 * Collects what a child writes to fd 1 and fd 2, keeping at most `maxBytes` (UTF-8 bytes as
 * written). The rest is read and dropped so the child never blocks on a full pipe.
 */
export class OutputCapture {
  private readonly chunks: Buffer[] = []
  private kept = 0
  private total = 0

  constructor(private readonly maxBytes: number) {}

  write(chunk: Buffer): void {
    this.total += chunk.length
    const room = this.maxBytes - this.kept
    if (room <= 0) return
    const piece = chunk.length <= room ? chunk : chunk.subarray(0, room)
    this.chunks.push(piece)
    this.kept += piece.length
  }

  get truncated(): boolean {
    return this.total > this.maxBytes
  }

  /** Bytes written in total, kept or not. */
  get totalBytes(): number {
    return this.total
  }

  text(): string {
    const bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.kept)
    if (!this.truncated) return bytes.toString('utf8')
    const kept = bytes.subarray(0, utf8SafeEnd(bytes)).toString('utf8')
    return `${kept}${kept === '' || kept.endsWith('\n') ? '' : '\n'}${TRUNCATION_MARKER}`
  }
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
    const keep = this.marker.length
    if (chunk.length >= keep) {
      if (this.tail.length > 0) this.sink(this.tail)
      if (chunk.length > keep) this.sink(chunk.subarray(0, chunk.length - keep))
      this.tail = Buffer.from(chunk.subarray(chunk.length - keep))
      return
    }
    const joined = Buffer.concat([this.tail, chunk])
    if (joined.length > keep) this.sink(joined.subarray(0, joined.length - keep))
    this.tail = joined.subarray(Math.max(0, joined.length - keep))
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
