import type {StateConfig} from '../../config/schema.js'
import type {FlowOrigin} from '../../permissions/flows.js'

import {ToolError} from '../../downstream/index.js'
import {formatByteLimit} from '../../shared/byte-size.js'
import {cutAfter} from '../../shared/cut.js'
import {jsonShapeProblem} from '../../shared/json-shape.js'
import {MAX_STATE_DEPTH, MAX_STATE_KEY_CHARS} from '../../shared/limits.js'
import {printableNameProblem} from '../files/kept-files.js'

/**
 * Kept state: what programs keep between runs (SPEC §6.2): values stored by key, as their JSON, and
 * the files of ./session/. One per serve process (one client's MCP session) or `run`; in memory only
 * (state-file.ts writes it out for `run --state`). Everything here arrives from a program, already
 * parsed by the channel within its bounds, and is checked again: key, depth, bytes, count. A
 * refused store changes nothing.
 */
export class KeptState {
  /**
   * JSON text, kept as a string: every load() answers with this same string (the channel sends it
   * a slice at a time), so a program asking for a large value many times costs no copy each time.
   */
  private readonly values = new Map<string, StoredValue>()
  private valueBytes = 0
  private sessionFiles = new Map<string, Buffer>()
  private fileBytes = 0
  /** The private source behind each value a marked program stored (SPEC §12.1); program-state.ts keeps it. */
  readonly flowMarks = new Map<string, FlowOrigin>()
  /** The private source behind ./session/ files a marked program left; undefined while they are clean. */
  filesFlow: FlowOrigin | undefined

  constructor(readonly limits: StateConfig) {}

  /** Bytes kept in all: values as JSON and ./session/ files. */
  get bytes(): number {
    return this.valueBytes + this.fileBytes
  }

  /** Keeps `value` under `key`, replacing what was there. Returns its size (JSON, UTF-8 bytes). Throws ToolError. */
  store(key: unknown, value: unknown): number {
    const name = checkedKey(key)
    let text: string | undefined
    try {
      text = JSON.stringify(value)
    } catch (error) {
      throw new ToolError(`store(): the value cannot be kept as JSON (${(error as Error).message})`, {
        kind: 'invalid_arguments',
      })
    }
    if (text === undefined)
      throw new ToolError('store(): the value cannot be kept as JSON', {kind: 'invalid_arguments'})
    return this.storeJson(name, text)
  }

  /** Keeps a value given as its JSON text (read back from a state file). Throws ToolError. */
  storeJson(key: string, json: string): number {
    const {limits} = this
    const bytes = Buffer.byteLength(json)
    if (bytes > limits.max_value_bytes) {
      throw new ToolError(
        `store("${shownKey(key)}"): the value is ${bytes} bytes of JSON, over the ${formatByteLimit(limits.max_value_bytes)} per value (state.max_value_bytes); store a summary, or split it under several keys`,
        {kind: 'max_value_bytes'},
      )
    }
    const depth =
      json.length > MAX_STATE_DEPTH ? jsonShapeProblem(Buffer.from(json), MAX_STATE_DEPTH) : undefined
    if (depth !== undefined)
      throw new ToolError(`store("${shownKey(key)}"): the value is ${depth}; flatten it`, {kind: 'too_large'})
    const previous = this.values.get(key)
    if (previous === undefined && this.values.size >= limits.max_keys) {
      throw new ToolError(
        `store("${shownKey(key)}"): ${limits.max_keys} keys are stored already (state.max_keys); forget() some, or keep several values under one key`,
        {kind: 'max_keys'},
      )
    }
    const after = this.bytes - (previous?.bytes ?? 0) + bytes
    if (after > limits.max_bytes) {
      throw new ToolError(
        `store("${shownKey(key)}"): ${bytes} more bytes would make ${after}, over the ${formatByteLimit(limits.max_bytes)} this session keeps (state.max_bytes, values and ./session/ files); forget() what is no longer needed`,
        {kind: 'max_bytes'},
      )
    }
    this.values.set(key, {json, bytes})
    this.valueBytes += bytes - (previous?.bytes ?? 0)
    return bytes
  }

  /** The JSON of the value under `key`, or undefined. Throws ToolError for a key that is not one. */
  load(key: unknown): string | undefined {
    return this.values.get(checkedKey(key))?.json
  }

  /** Whether `key` was stored (it is not any more). Throws ToolError for a key that is not one. */
  forget(key: unknown): boolean {
    const name = checkedKey(key)
    const previous = this.values.get(name)
    if (previous === undefined) return false
    this.values.delete(name)
    this.valueBytes -= previous.bytes
    return true
  }

  /** Every key with its size in bytes, in the order stored. */
  keys(): Record<string, number> {
    // Own properties, whatever the key (`__proto__` included).
    return Object.fromEntries([...this.values].map(([key, {bytes}]) => [key, bytes]))
  }

  /** The values, as JSON, in the order stored. */
  entries(): Array<[string, string]> {
    return [...this.values].map(([key, {json}]) => [key, json])
  }

  /** How many files ./session/ holds now. */
  get fileCount(): number {
    return this.sessionFiles.size
  }

  /** The files of ./session/ now (a copy: the next program's starting point). */
  files(): Map<string, Buffer> {
    return new Map(this.sessionFiles)
  }

  /**
   * Applies what one program did to ./session/: it started with `before` and ended with `after`.
   * Files it added or changed are kept, files it removed are removed, each only if another
   * program has not changed it meanwhile; a file that would go over max_session_files or
   * max_bytes is not kept (its earlier version stays). Returns what changed and what was refused.
   */
  applyFiles(before: ReadonlyMap<string, Buffer>, after: ReadonlyMap<string, Buffer>): FilesChange {
    const change: FilesChange = {written: [], removed: [], refused: []}
    const next = new Map(this.sessionFiles)
    for (const [name, data] of before) {
      if (after.has(name)) continue
      if (next.get(name) === data) {
        next.delete(name)
        change.removed.push(name)
      }
    }
    let bytes = [...next.values()].reduce((sum, data) => sum + data.length, 0)
    for (const [name, data] of after) {
      const earlier = before.get(name)
      if (earlier !== undefined && earlier.equals(data)) continue
      const replaced = next.get(name)
      if (replaced === undefined && next.size >= this.limits.max_session_files) {
        change.refused.push({name, reason: 'files'})
        continue
      }
      const total = this.valueBytes + bytes - (replaced?.length ?? 0) + data.length
      if (total > this.limits.max_bytes) {
        change.refused.push({name, reason: 'bytes'})
        continue
      }
      next.set(name, data)
      bytes += data.length - (replaced?.length ?? 0)
      change.written.push({name, bytes: data.length})
    }
    this.sessionFiles = next
    this.fileBytes = bytes
    return change
  }
}

/** A stored value: its JSON, and that JSON's size in UTF-8 bytes (what the bounds count). */
interface StoredValue {
  json: string
  bytes: number
}

/** What a program's ./session/ changed in the session's files. */
export interface FilesChange {
  written: {name: string; bytes: number}[]
  removed: string[]
  /** Files not kept: over max_session_files, or over max_bytes. */
  refused: {name: string; reason: 'bytes' | 'files'}[]
}

/** Longest key shown in a message. */
const SHOWN_KEY_CHARS = 60

/** A key as messages show it: cut when long. */
export function shownKey(key: string): string {
  return cutAfter(key, SHOWN_KEY_CHARS)
}

/** A key the program gave: a non-empty string of at most MAX_STATE_KEY_CHARS, printable. */
function checkedKey(key: unknown): string {
  if (typeof key !== 'string' || key === '')
    throw new ToolError('the key must be a non-empty string', {kind: 'invalid_arguments'})
  if (key.length > MAX_STATE_KEY_CHARS)
    throw new ToolError(
      `the key is ${key.length} characters, over ${MAX_STATE_KEY_CHARS}; use a shorter one`,
      {
        kind: 'invalid_arguments',
      },
    )
  const problem = printableNameProblem(key)
  if (problem !== undefined)
    throw new ToolError(`the key is ${problem.replace(/^a name/, 'a string')}; use plain text`, {
      kind: 'invalid_arguments',
    })
  return key
}
