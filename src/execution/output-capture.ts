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

  push(chunk: Buffer): void {
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

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function utf8SafeEnd(bytes: Uint8Array): number {
  let lead = bytes.length - 1
  let continuation = 0
  while (lead >= 0 && continuation < 3 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) {
    lead--
    continuation++
  }
  if (lead < 0) return bytes.length
  const first = bytes[lead] ?? 0
  const needed = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1
  return bytes.length - lead >= needed ? bytes.length : lead
}
