import type {ReceivedSessionFiles} from '../files/session-files.js'

import {JsonText} from '../../downstream/index.js'
import {FlowMark, type FlowRecord, type FlowRules} from '../../permissions/flows.js'
import {formatTraceBytes} from '../../shared/byte-size.js'
import {notKeptText} from '../files/kept-files.js'
import {traceTool} from '../outcome/trace.js'
import {type FilesChange, type KeptState, shownKey} from './kept-state.js'

/**
 * One program's view of the kept state (SPEC §6.2): the helpers store(), load(), stored()
 * and forget() act on the kept state through it, and it records what the program changed, for the
 * trace the model reads (`[stored: rows 1.2 MB; session/: 2 files, 1.3 MB]`).
 */
export class ProgramState {
  /** The kept ./session/ files when the program started: what it is given, and what it changed. */
  readonly filesBefore: ReadonlyMap<string, Buffer>
  /** Keys this program stored, with the size of the last value stored. */
  private readonly stored = new Map<string, number>()
  private readonly forgotten = new Set<string>()

  /** What private data this program read (SPEC §12.1): marked by its calls, by load(), by ./session/. */
  readonly flow: FlowMark

  constructor(
    readonly kept: KeptState,
    flowRules?: FlowRules,
  ) {
    this.filesBefore = kept.files()
    this.flow = new FlowMark(flowRules)
    if (this.filesBefore.size > 0) this.flow.reached(kept.filesFlow, './session/ files')
  }

  /** The bounds the child applies to what it sends back. */
  get limits(): KeptState['limits'] {
    return this.kept.limits
  }

  store(key: unknown, value: unknown): number {
    const bytes = this.kept.store(key, value)
    const name = key as string
    const {read} = this.flow
    if (read) this.kept.flowMarks.set(name, {tool: read.tool})
    else this.kept.flowMarks.delete(name)
    this.stored.set(name, bytes)
    this.forgotten.delete(name)
    return bytes
  }

  /**
   * The value under `key` as its JSON text (the child parses it), or `{found: false}` (a plain
   * value: runner/helpers.py's load() tells the two apart and returns its default).
   */
  load(key: unknown): JsonText | {found: false} {
    const json = this.kept.load(key)
    if (json === undefined) return {found: false}
    this.flow.reached(
      this.kept.flowMarks.get(key as string),
      `load(${JSON.stringify(shownKey(key as string))})`,
    )
    return new JsonText(json)
  }

  forget(key: unknown): boolean {
    const existed = this.kept.forget(key)
    const name = key as string
    if (existed) {
      this.kept.flowMarks.delete(name)
      this.stored.delete(name)
      this.forgotten.add(name)
    }
    return existed
  }

  /** Applies what the program left in ./session/ (if its transfer completed); returns what changed. */
  finish(received?: ReceivedSessionFiles): StateChange {
    const files =
      received?.files === undefined ? undefined : this.kept.applyFiles(this.filesBefore, received.files)
    if (files) this.markFiles(files)
    return {
      stored: [...this.stored].map(([key, bytes]) => ({key, bytes})),
      forgotten: [...this.forgotten],
      ...(files && {files}),
      notKept: received?.notKept ?? [],
      moreNotKept: received?.moreNotKept ?? 0,
      flows: this.flow.records,
    }
  }

  /** Files a marked program wrote are marked; with none left, ./session/ is clean again. */
  private markFiles(files: FilesChange): void {
    const {read} = this.flow
    if (this.kept.fileCount === 0) this.kept.filesFlow = undefined
    else if (read && files.written.length > 0) this.kept.filesFlow = {tool: read.tool}
  }
}

/** What one program changed in the kept state. */
export interface StateChange {
  stored: {key: string; bytes: number}[]
  forgotten: string[]
  /** Absent when the program did not end (timeout, crash): its ./session/ was not taken back. */
  files?: FilesChange
  /** ./session/ entries the child did not send or the parent refused (links, names, limits). */
  notKept: ReceivedSessionFiles['notKept']
  moreNotKept: number
  /** The data-flow decisions of the program (SPEC §12.1), in order. */
  flows?: readonly FlowRecord[]
}

/** Keys named in the trace line; the others are counted. */
const MAX_NAMED_KEYS = 5

/**
 * The trace lines of a program's state changes: `[stored: rows 1.2 MB, summary 0.4 KB; forgot: x;
 * session/: 2 files, 1.3 MB; 1 removed]`, then `  not kept: session/evil (a link: ...)`. None
 * when nothing changed.
 */
export function stateTraceLines(change: StateChange | undefined, limits: KeptState['limits']): string[] {
  if (!change) return []
  const parts: string[] = []
  if (change.stored.length > 0)
    parts.push(
      `stored: ${named(change.stored.map(({key, bytes}) => `${shownKey(key)} ${traceSize(bytes)}`))}`,
    )
  if (change.forgotten.length > 0)
    parts.push(`forgot: ${named(change.forgotten.map((key) => shownKey(key)))}`)
  const {files} = change
  const refused = files?.refused ?? []
  if (files && files.written.length > 0) {
    const bytes = files.written.reduce((sum, file) => sum + file.bytes, 0)
    parts.push(`session/: ${count(files.written.length, 'file')}, ${traceSize(bytes)}`)
  }
  if (files && files.removed.length > 0) parts.push(`session/: ${files.removed.length} removed`)
  const lines = parts.length > 0 ? [`[${parts.join('; ')}]`] : []
  const notKept = [
    ...change.notKept.map(({name, reason}) => ({
      name,
      reason: notKeptText(reason, sessionLimits(limits), 'per session'),
    })),
    ...refused.map(({name, reason}) => ({
      name,
      reason: notKeptText(reason, sessionLimits(limits), 'per session'),
    })),
  ]
  if (notKept.length > 0 || change.moreNotKept > 0) {
    const shown = notKept.slice(0, MAX_NAMED_KEYS).map(({name, reason}) => `session/${name} (${reason})`)
    const more = notKept.length - shown.length + change.moreNotKept
    if (more > 0) shown.push(`${more} more`)
    lines.push(`  not kept: ${shown.join('; ')}`)
  }
  return [...lines, ...flowTraceLines(change.flows ?? [])]
}

/** `[flow: mcp__vault__read_secret → mcp__web__post: denied]`, the same decision counted (`×3`). */
function flowTraceLines(records: readonly FlowRecord[]): string[] {
  const counts = new Map<string, number>()
  for (const {source, sink, decision} of records) {
    const line = `flow: ${traceTool(source)} → ${traceTool(sink)}: ${decision}`
    counts.set(line, (counts.get(line) ?? 0) + 1)
  }
  const lines = [...counts].map(([line, n]) => `[${line}${n > 1 ? ` ×${n}` : ''}]`)
  if (lines.length <= MAX_NAMED_KEYS) return lines
  return [...lines.slice(0, MAX_NAMED_KEYS), `[flow: ${lines.length - MAX_NAMED_KEYS} more decisions]`]
}

/** The ./session/ file bounds of a session's limits. */
export function sessionLimits(limits: KeptState['limits']): {files: number; bytes: number} {
  return {files: limits.max_session_files, bytes: limits.max_bytes}
}

/** `13 bytes`, `9.7 KB`, `1.2 MB`: sizes in the trace's units. */
function traceSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : formatTraceBytes(bytes)
}

function named(items: string[]): string {
  const shown = items.slice(0, MAX_NAMED_KEYS)
  if (items.length > shown.length) shown.push(`${items.length - shown.length} more`)
  return shown.join(', ')
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}
