/* eslint-disable no-bitwise -- open flags are bit patterns */
import {closeSync, constants, fstatSync, openSync, readSync, type Stats} from 'node:fs'
import {open} from 'node:fs/promises'

/**
 * Reading a file that someone else may have planted (SPEC §15, "nothing on disk is trusted as
 * found"): opened without following a link in its last component and without waiting (a FIFO
 * with no writer would block the open for good), checked through the descriptor to be a regular
 * file of at most `maxBytes`, and only then read, no further than the size checked.
 */

/** Open flags for such a read. */
export const UNTRUSTED_READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** Why a file was not read: a link, not a regular file, or larger than allowed. */
export class RefusedFile extends Error {
  constructor(
    readonly reason: 'link' | 'kind' | 'size',
    message: string,
    readonly size?: number,
  ) {
    super(message)
    this.name = 'RefusedFile'
  }
}

/** 'a FIFO', 'a directory'...: what a file that is not regular is. */
export function fileKind(
  stat: Pick<
    Stats,
    'isFIFO' | 'isDirectory' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'isSymbolicLink'
  >,
): string {
  if (stat.isFIFO()) return 'a FIFO'
  if (stat.isDirectory()) return 'a directory'
  if (stat.isSocket()) return 'a socket'
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device'
  if (stat.isSymbolicLink()) return 'a symbolic link'
  return 'not a file'
}

function check(stat: Stats, maxBytes: number): void {
  if (!stat.isFile()) throw new RefusedFile('kind', `is not a regular file (${fileKind(stat)})`)
  if (stat.size > maxBytes)
    throw new RefusedFile('size', `is ${stat.size} bytes, over ${maxBytes}`, stat.size)
}

function refusedOpen(error: unknown): never {
  if ((error as NodeJS.ErrnoException).code === 'ELOOP')
    throw new RefusedFile('link', 'is a symbolic link', undefined)
  throw error
}

/** Reads `path` as above. Throws RefusedFile, or the open's own error (ENOENT as it is). */
export function readRegularFileSync(path: string, maxBytes: number): Buffer {
  let fd: number
  try {
    fd = openSync(path, UNTRUSTED_READ_FLAGS)
  } catch (error) {
    refusedOpen(error)
  }
  try {
    const stat = fstatSync(fd)
    check(stat, maxBytes)
    const data = Buffer.alloc(stat.size)
    let offset = 0
    while (offset < data.length) {
      const read = readSync(fd, data, offset, data.length - offset, offset)
      if (read === 0) break
      offset += read
    }
    return data.subarray(0, offset)
  } finally {
    closeSync(fd)
  }
}

/** The same, without blocking the event loop. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, UNTRUSTED_READ_FLAGS).catch(refusedOpen)
  try {
    const stat = await handle.stat()
    check(stat, maxBytes)
    const data = Buffer.alloc(stat.size)
    let offset = 0
    while (offset < data.length) {
      const {bytesRead} = await handle.read(data, offset, data.length - offset, offset)
      if (bytesRead === 0) break
      offset += bytesRead
    }
    return data.subarray(0, offset)
  } finally {
    await handle.close()
  }
}
