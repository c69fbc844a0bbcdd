/**
 * The images `show()` passes to the client (SPEC §14): PNG, JPEG, GIF and WebP only, the declared
 * type the one the bytes' signature says. No SVG (it may carry script), nothing labelled as one
 * type that is another. The runner checks the same (runner/media.py); this side decides.
 */

/** Each shown type and the file extension `run` writes it with. */
export const SHOWN_IMAGE_TYPES: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
}

/** Bytes enough to tell the types apart. */
export const SIGNATURE_BYTES = 12

/** The image type the bytes' signature names, or undefined. */
export function imageTypeOf(head: Uint8Array): string | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.length)
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png'
  if (bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'image/jpeg'
  const ascii = bytes.subarray(0, SIGNATURE_BYTES).toString('latin1')
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif'
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp'
  return undefined
}
