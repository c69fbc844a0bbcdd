import {existsSync, readFileSync} from 'node:fs'
import {dirname} from 'node:path'
import {isDeepStrictEqual} from 'node:util'

import type {ToolHost} from '../downstream/index.js'
import type {ProgramEngine, ProgramLookup, RunOutcome} from '../execution/index.js'
import type {SavedProgram} from './catalogue.js'

import {shapeDrift} from './drift.js'
import {cutResult, parseRecording, type RecordedCall, type Recording, recordingHost} from './recording.js'
import {replayHost} from './replay.js'
import {programFiles} from './save.js'

/** What `ptc-mcp programs test` found for one program (SPEC §17). */
export interface ProgramTestResult {
  name: string
  path: string
  /** replay: against the recording, no server contacted; live: against the servers, shapes compared. */
  mode: 'live' | 'replay'
  ok: boolean
  /** What differs, one line each: the output, the emitted value, each result-shape drift. */
  problems: string[]
  /** Why it was not tested (no recording). */
  skipped?: string
}

const MAX_SHOWN_CHARS = 120

function shown(text: string | undefined): string {
  if (text === undefined) return '(nothing)'
  const json = JSON.stringify(text)
  return json.length > MAX_SHOWN_CHARS ? `${json.slice(0, MAX_SHOWN_CHARS - 1)}…"` : json
}

/** The first line where two outputs differ, as a problem line. */
function outputDifference(recorded: string, now: string): string | undefined {
  if (recorded === now) return undefined
  const a = recorded.split('\n')
  const b = now.split('\n')
  const line = a.findIndex((text, index) => text !== b[index])
  const at = line === -1 ? a.length : line
  return `output differs at line ${at + 1}: recorded ${shown(a[at])}, now ${shown(b[at])}`
}

/** The recording beside a program, or undefined when there is none (or it is not one). */
export function readRecording(program: SavedProgram): Recording | undefined {
  const {recordingPath} = programFiles(dirname(program.path), program.name)
  if (!existsSync(recordingPath)) return undefined
  return parseRecording(readFileSync(recordingPath, 'utf8'))
}

/**
 * Tests a saved program against its recording (SPEC §17). Replay (no `live`): the recorded
 * answers stand in for the servers, and the output and emitted value must be the recorded ones.
 * Live: the calls go to `live`, and each result's shape must be the recorded result's.
 */
export async function testProgram(
  program: SavedProgram,
  engine: ProgramEngine,
  options: {live?: ToolHost; programs?: ProgramLookup} = {},
): Promise<ProgramTestResult> {
  const mode = options.live ? 'live' : 'replay'
  const base = {name: program.name, path: program.path, mode} as const
  if (program.problem) return {...base, ok: false, problems: [program.problem]}
  const recording = readRecording(program)
  if (!recording)
    return {
      ...base,
      ok: true,
      problems: [],
      skipped: 'no recording (save it from a run: execute_program save_as)',
    }
  const calls: RecordedCall[] = []
  const host = options.live ? recordingHost(options.live, calls) : replayHost(recording, program.tools)
  const outcome = await engine.run(program.source, {
    host,
    ...(options.programs && {programs: options.programs}),
    ...(program.callsMain && {mainArguments: recording.arguments ?? {}}),
  })
  const problems = options.live ? driftProblems(recording, calls) : replayProblems(recording, outcome)
  if (!outcome.ok) problems.unshift(`the program failed: ${outcome.error ?? outcome.status}`)
  return {...base, ok: problems.length === 0, problems}
}

function replayProblems(recording: Recording, outcome: RunOutcome): string[] {
  const problems: string[] = []
  const output = outputDifference(recording.output, outcome.output)
  if (output) problems.push(output)
  const result = outcome.result ?? undefined
  if (!isDeepStrictEqual(result, recording.result ?? undefined))
    problems.push(
      `emitted value differs: recorded ${shown(JSON.stringify(recording.result))}, now ${shown(JSON.stringify(result))}`,
    )
  return problems
}

/** `mcp__x__list: items[].assignee (object) is now items[].assignees (list)`, per drift. */
function driftProblems(recording: Recording, live: RecordedCall[]): string[] {
  const problems: string[] = []
  const compared = new Set<string>()
  for (const call of recording.calls) {
    if (compared.has(call.tool) || call.error !== undefined || cutResult(call.result)) continue
    const now = live.find((other) => other.tool === call.tool && other.error === undefined)
    if (!now) continue
    compared.add(call.tool)
    for (const line of shapeDrift(call.result, now.result)) problems.push(`${call.tool}: ${line}`)
  }
  return problems
}
