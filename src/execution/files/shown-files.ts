import {closeSync, constants, mkdirSync, openSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import type {ShownImage} from '../protocol/protocol.js'

import {SHOWN_IMAGE_TYPES} from '../protocol/image-types.js'
import {shownPath} from './artifacts.js'

// eslint-disable-next-line no-bitwise -- open flags are bit patterns
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/**
 * Writes the images a program passed to show() into `<run-dir>/shown/` (`run` has no client to
 * show them to, SPEC §14: they are artifacts of the run, pruned with it) and returns their paths.
 */
export function writeShownImages(images: readonly ShownImage[], runDir: () => string): string[] {
  if (images.length === 0) return []
  const dir = join(runDir(), 'shown')
  mkdirSync(dir, {mode: 0o700})
  return images.map((image, index) => {
    const path = join(dir, `image-${index + 1}.${SHOWN_IMAGE_TYPES[image.mimeType] ?? 'img'}`)
    const fd = openSync(path, CREATE_FLAGS, 0o600)
    try {
      const bytes = Buffer.from(image.data, 'base64')
      let offset = 0
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset)
    } finally {
      closeSync(fd)
    }
    return shownPath(path)
  })
}
