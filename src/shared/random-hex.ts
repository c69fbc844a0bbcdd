import {randomFillSync} from 'node:crypto'

/** Bytes drawn from the system's generator at once: one call serves many tokens. */
const POOL_BYTES = 4096

const pool = Buffer.alloc(POOL_BYTES)
let used = POOL_BYTES

/**
 * `bytes` fresh random bytes (at most 256) as hex: unpredictable as `randomBytes(bytes)`, but
 * drawn from a batch filled once per 4 KiB (a token per program, in serve, costs a system call
 * and a buffer otherwise). Each byte is handed out once.
 */
export function randomHex(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 256) throw new RangeError(`randomHex: ${bytes} bytes`)
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool)
    used = 0
  }
  const hex = pool.toString('hex', used, used + bytes)
  used += bytes
  return hex
}
