import {closeSync, constants, mkdirSync, openSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {formatByteLimit, formatBytes} from '../../shared/byte-size.js'
import {MAX_KEPT_BYTES, MAX_KEPT_DEPTH, MAX_KEPT_FILES, MAX_KEPT_NAME_BYTES} from '../../shared/limits.js'
import {type FileSkippedReason, ProtocolError} from '../protocol/protocol.js'
import {shownPath} from './artifacts.js'

/**
 * Files a program wrote under `./out/`, kept after the run (SPEC §14). The runner lists them inside
 * the sandbox (regular files only, no link followed) and sends them over the channel; everything it
 * sends is a claim: this module checks every name, counts files and bytes against the limits as
 * they arrive, holds no more than one chunk, and writes only into a directory it made itself, with
 * O_EXCL|O_NOFOLLOW. It never touches the program's own paths.
 */

const MAX_COMPONENT_BYTES = 255
/** Not-kept entries named in the listing; the rest are counted. */
const MAX_NAMED_NOT_KEPT = 5
/** Longest name shown for an entry not kept. */
const MAX_SHOWN_NAME_CHARS = 200

/** Why an entry of out/ was not kept: what the runner found, or what this writer refused. */
export type NotKeptReason = FileSkippedReason | 'error'

/** Most files and bytes a transfer keeps. */
export interface FileLimits {
  files: number
  bytes: number
}

/** Why `reason` kept a file out, with the limits of that transfer. */
export function notKeptText(
  reason: NotKeptReason,
  limits: FileLimits = KEPT_LIMITS,
  per = 'per run',
): string {
  switch (reason) {
    case 'link': {
      return 'a link: links are not followed'
    }
    case 'special': {
      return 'not a regular file'
    }
    case 'depth': {
      return `deeper than ${MAX_KEPT_DEPTH} directories`
    }
    case 'files': {
      return `and any after it: at most ${limits.files} files ${per}`
    }
    case 'bytes': {
      return `over ${formatByteLimit(limits.bytes)} in total ${per}`
    }
    case 'name': {
      return 'a name that cannot be kept'
    }
    case 'unreadable': {
      return 'could not be read'
    }
    case 'error': {
      return 'could not be written'
    }
  }
}

const KEPT_LIMITS: FileLimits = {files: MAX_KEPT_FILES, bytes: MAX_KEPT_BYTES}

export interface KeptFile {
  /** Relative to out/, with `/` between directories. */
  name: string
  /** Where it is kept: `<artifacts_dir>/<run-id>/out/<name>`. */
  path: string
  bytes: number
}

export interface KeptFiles {
  /** `<artifacts_dir>/<run-id>/out`, once a file was kept. */
  dir?: string
  files: KeptFile[]
  /** The first entries not kept, with why; `moreNotKept` counts the others. */
  notKept: {name: string; reason: NotKeptReason}[]
  moreNotKept: number
}

/**
 * Characters that would let a name break the listing the model and the user read: C0, DEL, C1,
 * line separators, and the bidirectional embeddings, overrides and isolates (U+202A–202E,
 * U+2066–2069), which reorder what is shown (`bidi\u202Etxt.exe` reads as `bidiexe.txt`).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const UNSAFE_CHARACTERS = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/
/** In unicode mode only an unpaired surrogate is a code point of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u

/** What would make `name` break a listing (not valid Unicode, control or bidirectional characters), or undefined. */
export function printableNameProblem(name: string): string | undefined {
  if (LONE_SURROGATE.test(name)) return 'a name that is not valid Unicode'
  if (UNSAFE_CHARACTERS.test(name)) return 'a name with control or bidirectional characters'
  return undefined
}

/**
 * What is wrong with a name the child claims for a kept file, or undefined: relative, `/`-separated,
 * no empty, `.` or `..` component, valid Unicode without control characters, bounded length and
 * depth. Such a name cannot leave the directory it is joined to.
 */
export function keptNameProblem(name: string): string | undefined {
  if (name === '') return 'an empty name'
  const unprintable = printableNameProblem(name)
  if (unprintable !== undefined) return unprintable
  if (Buffer.byteLength(name) > MAX_KEPT_NAME_BYTES) return `a name over ${MAX_KEPT_NAME_BYTES} bytes`
  const parts = name.split('/')
  if (parts.length > MAX_KEPT_DEPTH + 1) return `a name deeper than ${MAX_KEPT_DEPTH} directories`
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..') return `a name with a "${part}" component`
    if (Buffer.byteLength(part) > MAX_COMPONENT_BYTES)
      return `a name component over ${MAX_COMPONENT_BYTES} bytes`
  }
  return undefined
}

/** A file being received: its data goes into a store, and it ends kept or discarded. */
export interface ReceivingFile {
  write(chunk: Buffer): void
  /** Kept: where it is (a path, or '' for a file kept in memory). */
  close(): string
  discard(): void
}

/** Where a transfer keeps its files: `create` throws when a file cannot be made. */
export interface FileStore {
  create(name: string): ReceivingFile
}

interface OpenFile {
  name: string
  file: ReceivingFile
  bytes: number
}

/**
 * Receives the files of one transfer, in the order the child sends them: `begin(name)`, then its
 * chunks with `append`, until the next `begin`, `notKept` or `finish`. Names, counts and bytes are
 * checked here as they arrive, whatever the store: `runDir` (once) makes the run's private
 * artifacts directory, where ./out/ files go (`diskStore`); session-files.ts keeps ./session/ in memory.
 */
export class KeptFilesWriter {
  private readonly files: KeptFile[] = []
  private readonly notKept: KeptFiles['notKept'] = []
  private moreNotKept = 0
  private totalBytes = 0
  private current: OpenFile | undefined
  /** The current file's data is read and dropped (it was refused). */
  private dropping = false
  private readonly store: DiskStore | FileStore
  /** Set once the file limit refused a file: every later one is refused too, uncounted. */
  private full = false
  private finished = false

  constructor(
    store: (() => string) | FileStore,
    private readonly limits: FileLimits = KEPT_LIMITS,
  ) {
    this.store = typeof store === 'function' ? new DiskStore(store) : store
  }

  /** Starts a file the child found at `<dir>/<name>`. */
  begin(name: string): void {
    this.close()
    if (this.finished) return
    this.dropping = true
    const problem = keptNameProblem(name)
    if (problem !== undefined) return this.refuse(name, 'name')
    if (this.full) return
    if (this.files.length >= this.limits.files) {
      this.full = true
      return this.refuse(name, 'files')
    }
    let file: ReceivingFile
    try {
      file = this.store.create(name)
    } catch {
      return this.refuse(name, 'error')
    }
    this.current = {name, file, bytes: 0}
    this.dropping = false
  }

  /** The next chunk of the current file. Data with no file begun is a broken protocol. */
  append(chunk: Buffer): void {
    if (this.finished) return
    if (this.dropping) return
    const open = this.current
    if (!open) throw new ProtocolError('file data arrived before any file was begun')
    if (this.totalBytes + chunk.length > this.limits.bytes) {
      this.discard(open)
      return this.refuse(open.name, 'bytes')
    }
    try {
      open.file.write(chunk)
    } catch {
      this.discard(open)
      return this.refuse(open.name, 'error')
    }
    open.bytes += chunk.length
    this.totalBytes += chunk.length
  }

  /** An entry the child did not send, and why. */
  skipped(name: string, reason: NotKeptReason): void {
    this.close()
    if (this.finished) return
    this.record(name, reason)
  }

  /**
   * Ends the transfer. `complete`: the child said it was done; otherwise a file still being
   * received is incomplete and is removed.
   */
  finish(complete: boolean): KeptFiles {
    if (!this.finished) {
      if (complete) this.close()
      else if (this.current) this.discard(this.current)
      this.finished = true
    }
    // Written through the run directory's descriptor; shown (and linked to) by its path.
    const dir = this.store instanceof DiskStore ? this.store.shownOutDir : undefined
    return {
      ...(dir !== undefined && this.files.length > 0 && {dir}),
      files: this.files,
      notKept: this.notKept,
      moreNotKept: this.moreNotKept,
    }
  }

  /** Closes the current file, which is then kept. */
  private close(): void {
    this.dropping = false
    const open = this.current
    if (!open) return
    this.current = undefined
    this.files.push({name: open.name, path: open.file.close(), bytes: open.bytes})
  }

  /** Removes a file being received (refused, or incomplete); its bytes no longer count. */
  private discard(open: OpenFile): void {
    this.current = undefined
    this.dropping = true
    this.totalBytes -= open.bytes
    open.file.discard()
  }

  private refuse(name: string, reason: NotKeptReason): void {
    this.dropping = true
    this.record(name, reason)
  }

  /** A claimed name is only ever displayed: one that could break the listing is not shown. */
  private record(name: string, reason: NotKeptReason): void {
    if (this.notKept.length >= MAX_NAMED_NOT_KEPT) {
      this.moreNotKept++
      return
    }
    const printable = printableNameProblem(name) === undefined
    const shown =
      name.length > MAX_SHOWN_NAME_CHARS ? `${[...name].slice(0, MAX_SHOWN_NAME_CHARS).join('')}…` : name
    this.notKept.push({name: printable ? shown : '(unprintable name)', reason})
  }
}

// eslint-disable-next-line no-bitwise -- open flags are bit patterns
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/**
 * ./out/ files on disk, in `<run dir>/out/`, made here: each directory of a name that this store
 * has not made yet. mkdir never follows a link and fails on anything already there, and files are
 * opened O_EXCL|O_NOFOLLOW, so a file can only land in a directory of this store's own. Every path
 * is taken through `runDir()` when it is used, never kept: the run directory's descriptor may be
 * closed in between (the child exited while its output was still draining) and its number given to
 * another file, or to another run's directory.
 */
class DiskStore implements FileStore {
  /** `<run dir>/out` as the user sees it, taken while the run directory was held (see shownPath). */
  shownOutDir: string | undefined
  /** Directories made under out/ (relative names); '' is out/ itself. */
  private readonly made = new Set<string>()

  constructor(private readonly runDir: () => string) {}

  create(name: string): ReceivingFile {
    const path = this.pathToCreate(name)
    const fd = openSync(path, CREATE_FLAGS, 0o600)
    // Now, while the run directory's descriptor is held: the path through it means nothing later.
    const shown = shownPath(path)
    let closed = false
    const closeFd = () => {
      if (closed) return
      closed = true
      try {
        closeSync(fd)
      } catch {
        // Written already; closing cannot lose it.
      }
    }
    return {
      write(chunk) {
        let offset = 0
        while (offset < chunk.length) offset += writeSync(fd, chunk, offset)
      },
      close() {
        closeFd()
        return shown
      },
      discard: () => {
        closeFd()
        try {
          rmSync(this.outPath(name), {force: true})
        } catch {
          // The run directory is gone or no longer ours: nothing of this run is left to remove
          // there, and a cleanup must never throw into serve.
        }
      },
    }
  }

  /** `<run dir>/out/<name>`, through the run directory as it is held now. */
  private outPath(name = ''): string {
    return join(this.runDir(), 'out', name)
  }

  /** The path to create `name` at, its directories made (out/ the first time). */
  private pathToCreate(name: string): string {
    if (!this.made.has('')) {
      const dir = this.outPath()
      mkdirSync(dir, {mode: 0o700})
      this.shownOutDir = shownPath(dir)
      this.made.add('')
    }
    const parts = name.split('/').slice(0, -1)
    let relative = ''
    for (const part of parts) {
      relative = relative === '' ? part : `${relative}/${part}`
      if (!this.made.has(relative)) {
        mkdirSync(this.outPath(relative), {mode: 0o700})
        this.made.add(relative)
      }
    }
    return this.outPath(name)
  }
}

/**
 * The listing the model reads (SPEC §14), e.g.
 * `--- files kept in /…/<run-id>/out ---`, `report.csv (1.2 KiB)`, `not kept: evil (a link: ...)`.
 * Empty when nothing was kept or refused.
 */
export function keptFilesLines(kept: KeptFiles): string[] {
  const lines: string[] = []
  if (kept.dir !== undefined) {
    lines.push(`--- files kept in ${kept.dir} ---`)
    for (const file of kept.files) lines.push(`${file.name} (${formatBytes(file.bytes)})`)
  } else if (kept.notKept.length > 0) lines.push('--- files kept: none ---')
  if (kept.notKept.length > 0) {
    const named = kept.notKept.map(({name, reason}) => `out/${name} (${notKeptText(reason)})`)
    if (kept.moreNotKept > 0) named.push(`${kept.moreNotKept} more`)
    lines.push(`not kept: ${named.join('; ')}`)
  }
  return lines
}

export {MAX_KEPT_BYTES, MAX_KEPT_FILES} from '../../shared/limits.js'
