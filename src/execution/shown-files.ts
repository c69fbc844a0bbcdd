import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {ShownImage} from './protocol.js'

const EXTENSIONS: Record<string, string> = {
  'image/gif': 'gif',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/svg+xml': 'svg',
  'image/webp': 'webp',
}

/**
 * Writes the images a program passed to show() to files of a new private directory under the
 * temp dir (`run` has no client to show them to, SPEC §14) and returns their paths.
 */
export function writeShownImages(images: readonly ShownImage[]): string[] {
  if (images.length === 0) return []
  const dir = mkdtempSync(join(tmpdir(), 'ptc-mcp-shown-'))
  return images.map((image, index) => {
    const path = join(dir, `image-${index + 1}.${EXTENSIONS[image.mimeType] ?? 'img'}`)
    writeFileSync(path, Buffer.from(image.data, 'base64'), {mode: 0o600})
    return path
  })
}
