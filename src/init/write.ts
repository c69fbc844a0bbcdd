import {copyFile, rename, rm, stat, writeFile} from 'node:fs/promises'
import {dirname} from 'node:path'

import {PtcError} from '../shared/errors.js'
import {makeDirs} from '../shared/make-dirs.js'

function fileExists(path: string): PtcError {
  return new PtcError('FILE_EXISTS', `${path} already exists; not overwriting it.`, {
    suggestion:
      'Pass --force to replace it (the old file is kept as .bak), --output PATH to write elsewhere, or --dry-run to print the config.',
  })
}

/** Fails early, before any question is asked, when the config could not be written. */
export async function assertWritable(path: string, force: boolean): Promise<void> {
  const found = await stat(path).catch(() => null)
  if (found === null) return
  if (found.isDirectory()) {
    throw new PtcError('USAGE', `${path} is a directory.`, {
      suggestion: 'Pass --output with the path of a file, e.g. config.yaml.',
    })
  }
  if (!force) throw fileExists(path)
}

/**
 * Writes the config readable by its owner only (it may hold secrets), creating the directory. Without
 * `force` an existing file is never touched, even one that appeared since {@link assertWritable}; with
 * it the old file is kept as `<path>.bak` and the new one replaces it in one rename.
 */
export async function writeConfigFile(
  path: string,
  text: string,
  force: boolean,
): Promise<{backup: string | null}> {
  try {
    return await write(path, text, force)
  } catch (error) {
    if (error instanceof PtcError || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error
    throw new PtcError('USAGE', `Cannot write ${path}: ${(error as Error).message}`, {
      suggestion: 'Pass --output with a path you can write to, or --dry-run to print the config.',
      cause: error,
    })
  }
}

async function write(path: string, text: string, force: boolean): Promise<{backup: string | null}> {
  makeDirs(dirname(path))
  if (!force) {
    try {
      await writeFile(path, text, {flag: 'wx', mode: 0o600})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw fileExists(path)
      throw error
    }
    return {backup: null}
  }
  const temporary = `${path}.${process.pid}.tmp`
  try {
    await writeFile(temporary, text, {flag: 'wx', mode: 0o600})
    const backup = `${path}.bak`
    const hadFile = await copyFile(path, backup).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false
        throw error
      },
    )
    await rename(temporary, path)
    return {backup: hadFile ? backup : null}
  } finally {
    await rm(temporary, {force: true})
  }
}
