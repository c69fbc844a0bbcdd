import type {CallToolOptions, ToolHost} from '../downstream/index.js'

import {JsonText} from '../downstream/index.js'
import {isRecord} from '../shared/guards.js'

/** The largest recording kept beside a saved program (SPEC §17). */
export const MAX_RECORDING_BYTES = 1024 * 1024
/** A result over its share of the bound is replaced by this mark, with its size. */
export const CUT_MARK = '__ptc_cut__'
const RECORDING_VERSION = 1

/** One call of a run: the tool, its arguments and its result (or its error). */
export interface RecordedCall {
  tool: string
  args: Record<string, unknown>
  result?: unknown
  error?: string
}

/** `<name>.calls.json`: what a run's tool calls answered, and what the run printed and emitted. */
export interface Recording {
  version: number
  calls: RecordedCall[]
  output: string
  result?: unknown
  /** A saved program's arguments in the recorded run (main()'s), when it took any. */
  arguments?: Record<string, unknown>
}

/** Whether a recorded result was cut for the bound; then `bytes` says how big it was. */
export function cutResult(result: unknown): {bytes: number} | undefined {
  if (!isRecord(result) || !isRecord(result[CUT_MARK])) return undefined
  const bytes = Number(result[CUT_MARK].bytes)
  return {bytes: Number.isFinite(bytes) ? bytes : 0}
}

/** A text result passed on unparsed is recorded as the program received it: its JSON, else the text. */
export function receivedValue(value: unknown): unknown {
  if (!(value instanceof JsonText)) return value
  try {
    return JSON.parse(value.text) as unknown
  } catch {
    return value.text
  }
}

/**
 * A host that records every call made through it (SPEC §17: the tool results of the run that is
 * saved), in the order they finished, and otherwise is `host`.
 */
export function recordingHost(host: ToolHost, calls: RecordedCall[]): ToolHost {
  return {
    listTools: () => host.listTools(),
    getTool: (name) => host.getTool(name),
    approvalNote: host.approvalNote && ((tool) => host.approvalNote!(tool)),
    hiddenTool: host.hiddenTool && ((name) => host.hiddenTool!(name)),
    unavailableServers: () => host.unavailableServers(),
    serverStatus: () => host.serverStatus(),
    observedResult: host.observedResult && ((name) => host.observedResult!(name)),
    waitForInitialConnections: (timeoutMs) => host.waitForInitialConnections(timeoutMs),
    async callTool(name: string, args: Record<string, unknown>, options: CallToolOptions) {
      try {
        const value = await host.callTool(name, args, options)
        calls.push({tool: name, args, result: receivedValue(value)})
        return value
      } catch (error) {
        calls.push({tool: name, args, error: error instanceof Error ? error.message : String(error)})
        throw error
      }
    },
  }
}

/**
 * The recording as written: strings with secrets redacted by `redact`, and within
 * MAX_RECORDING_BYTES, the largest results cut first, each replaced by `{__ptc_cut__: {bytes}}`.
 */
export function recordingText(
  recording: Omit<Recording, 'version'>,
  redact: (text: string) => string = (text) => text,
  maxBytes = MAX_RECORDING_BYTES,
): string {
  const clean = redactStrings({version: RECORDING_VERSION, ...recording}, redact) as Recording
  let text = JSON.stringify(clean, null, 1)
  if (Buffer.byteLength(text) <= maxBytes) return text
  const sizes = clean.calls
    .map((call, index) => ({index, bytes: Buffer.byteLength(JSON.stringify(call.result ?? null))}))
    .sort((a, b) => b.bytes - a.bytes)
  for (const {index, bytes} of sizes) {
    clean.calls[index]!.result = {[CUT_MARK]: {bytes}}
    text = JSON.stringify(clean, null, 1)
    if (Buffer.byteLength(text) <= maxBytes) return text
  }
  // Arguments and output alone are over the bound: keep only the output's head.
  clean.calls = clean.calls.map((call) => ({tool: call.tool, args: {}, result: {[CUT_MARK]: {bytes: 0}}}))
  clean.output = clean.output.slice(0, maxBytes / 4)
  return JSON.stringify(clean, null, 1)
}

function redactStrings(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value)
  if (depth > 64) return null
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact, depth + 1))
  if (isRecord(value)) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[redact(key)] = redactStrings(item, redact, depth + 1)
    return out
  }
  return value
}

/** A recording read back; undefined when the text is not one. */
export function parseRecording(text: string): Recording | undefined {
  try {
    const data = JSON.parse(text) as unknown
    if (!isRecord(data) || !Array.isArray(data.calls)) return undefined
    const calls = data.calls.filter(
      (call): call is RecordedCall => isRecord(call) && typeof call.tool === 'string' && isRecord(call.args),
    )
    return {
      version: Number(data.version) || RECORDING_VERSION,
      calls,
      output: typeof data.output === 'string' ? data.output : '',
      ...('result' in data && {result: data.result}),
      ...(isRecord(data.arguments) && {arguments: data.arguments}),
    }
  } catch {
    return undefined
  }
}
