import type {SessionDataMessage, SessionFileMessage} from '../protocol/protocol.js'

import {MAX_FILE_CHUNK_BYTES} from '../../shared/limits.js'
import {type FileLimits, type FileStore, type KeptFiles, KeptFilesWriter} from './kept-files.js'

/**
 * The files of ./session/ on their way between a session and its programs (SPEC §6.2). Out of a
 * program they come as its ./out/ files do (runner/kept_files.py, checked by `KeptFilesWriter`:
 * regular files only, no link followed, names checked, counted and bounded as they arrive), into
 * memory instead of a directory; into the next program they go as `session_file` and
 * `session_data` messages, made one at a time as the child reads them.
 */

/** A memory store for `KeptFilesWriter`: each file's chunks, joined once it is complete. */
class MemoryStore implements FileStore {
  readonly files = new Map<string, Buffer>()

  create(name: string) {
    const chunks: Buffer[] = []
    const {files} = this
    return {
      write(chunk: Buffer) {
        chunks.push(chunk)
      },
      close() {
        files.set(name, Buffer.concat(chunks))
        return ''
      },
      discard() {
        chunks.length = 0
      },
    }
  }
}

/** What a program left in ./session/, as received. */
export interface ReceivedSessionFiles {
  /** Every file received whole, by name; undefined when the transfer did not complete. */
  files?: Map<string, Buffer>
  /** Entries not kept, with why (links, names, limits). */
  notKept: KeptFiles['notKept']
  moreNotKept: number
}

/** Receives the ./session/ files of one program, within `limits`. */
export class SessionFilesReceiver {
  private readonly store = new MemoryStore()
  private readonly writer: KeptFilesWriter

  constructor(readonly limits: FileLimits) {
    this.writer = new KeptFilesWriter(this.store, limits)
  }

  begin(name: string): void {
    this.writer.begin(name)
  }

  append(chunk: Buffer): void {
    this.writer.append(chunk)
  }

  skipped(...args: Parameters<KeptFilesWriter['skipped']>): void {
    this.writer.skipped(...args)
  }

  /** `complete`: the child reported `done`; otherwise nothing it sent counts. */
  finish(complete: boolean): ReceivedSessionFiles {
    const {notKept, moreNotKept} = this.writer.finish(complete)
    return {...(complete && {files: this.store.files}), notKept, moreNotKept}
  }
}

/** The messages that write `files` into a child's ./session/, each made when the one before has gone. */
export function sessionFileLines(files: ReadonlyMap<string, Buffer>): Iterator<string> {
  const entries = files.entries()
  let current: {data: Buffer; offset: number} | undefined
  return {
    next(): IteratorResult<string> {
      if (current && current.offset < current.data.length) {
        const {data, offset} = current
        current.offset += MAX_FILE_CHUNK_BYTES
        const chunk: SessionDataMessage = {
          type: 'session_data',
          data: data.subarray(offset, offset + MAX_FILE_CHUNK_BYTES).toString('base64'),
        }
        return {done: false, value: `${JSON.stringify(chunk)}\n`}
      }
      const entry = entries.next()
      if (entry.done) return {done: true, value: undefined}
      const [name, data] = entry.value
      current = {data, offset: 0}
      const begin: SessionFileMessage = {type: 'session_file', name}
      return {done: false, value: `${JSON.stringify(begin)}\n`}
    },
  }
}
