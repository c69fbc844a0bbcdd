import {randomBytes} from 'node:crypto'
import {closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {PtcError} from '../../shared/errors.js'
import {isRecord} from '../../shared/guards.js'
import {jsonShapeProblem} from '../../shared/json-shape.js'
import {base64Chars, MAX_KEPT_NAME_BYTES, MAX_STATE_DEPTH, MAX_STATE_KEY_CHARS} from '../../shared/limits.js'
import {readRegularFileSync, RefusedFile} from '../../shared/regular-file.js'
import {keptNameProblem} from '../files/kept-files.js'
import {type KeptState} from './kept-state.js'

/**
 * `ptc-mcp run --state FILE` (SPEC §6.2): a session's values and ./session/ files, read before the
 * program and written after it, so that runs share what serve keeps in memory. The file is
 * `{"ptc_mcp_state": 1, "values": {key: value}, "files": {name: base64}}`, plus `"flows"` when
 * private data is in it (SPEC §12.1: `{"values": {key: source tool}, "files": source tool}`, so the
 * mark follows the data into the next run), written 0600 to a new file renamed over the old one. Read back, everything in it is checked as a program's store()
 * and ./session/ files are: bounds, depth, names.
 */

// eslint-disable-next-line no-bitwise -- open flags are bit patterns
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

const FORMAT_KEY = 'ptc_mcp_state'
const FORMAT_VERSION = 1

/**
 * Largest file writeStateFile makes for a session within its bounds: the session's bytes (values
 * are written as the JSON they were counted as, files as base64, so at most base64 of all of
 * them), plus each key and name quoted and escaped, plus the frame. A larger file is refused
 * before a byte of it is read.
 */
export function maxStateFileBytes(limits: KeptState['limits']): number {
  const perKey = 6 * MAX_STATE_KEY_CHARS + 4
  const perFile = 2 * MAX_KEPT_NAME_BYTES + 8
  return base64Chars(limits.max_bytes) + limits.max_keys * perKey + limits.max_session_files * perFile + 4096
}

/** The file's bytes, undefined when it does not exist yet; refused unless regular and within `most`. */
function readBounded(path: string, most: number): Buffer | undefined {
  try {
    return readRegularFileSync(path, most)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    if (!(error instanceof RefusedFile))
      throw stateFileError(path, `cannot be read (${(error as Error).message})`, error)
    if (error.reason === 'link') throw stateFileError(path, 'is a symbolic link; name the file itself', error)
    if (error.reason === 'kind') throw stateFileError(path, error.message, error)
    throw stateFileError(
      path,
      `is ${error.size} bytes, more than a state file within the state bounds can be (${most} bytes: state.max_bytes and the counts)`,
      error,
    )
  }
}

function stateFileError(path: string, problem: string, cause?: unknown): PtcError {
  return new PtcError('USAGE', `--state ${path}: ${problem}`, {
    suggestion: 'name a state file written by ptc-mcp run --state, or a new path (it is created)',
    cause,
  })
}

/** Reads `path` into `kept`; a file that does not exist yet is an empty kept. Throws PtcError. */
export function readStateFile(path: string, kept: KeptState): void {
  const data = readBounded(path, maxStateFileBytes(kept.limits))
  if (data === undefined) return
  const shape = jsonShapeProblem(data, MAX_STATE_DEPTH + 2)
  if (shape !== undefined) throw stateFileError(path, `holds JSON ${shape}`)
  let parsed: unknown
  try {
    parsed = JSON.parse(data.toString('utf8'))
  } catch (error) {
    throw stateFileError(path, 'is not JSON', error)
  }
  if (
    !isRecord(parsed) ||
    parsed[FORMAT_KEY] !== FORMAT_VERSION ||
    !isRecord(parsed.values) ||
    !isRecord(parsed.files)
  )
    throw stateFileError(path, `is not a ptc-mcp state file (version ${FORMAT_VERSION})`)
  try {
    for (const [key, value] of Object.entries(parsed.values)) kept.store(key, value)
  } catch (error) {
    throw stateFileError(path, `holds a value that cannot be kept: ${(error as Error).message}`, error)
  }
  const files = new Map<string, Buffer>()
  for (const [name, content] of Object.entries(parsed.files)) {
    const problem = keptNameProblem(name)
    if (problem !== undefined || typeof content !== 'string')
      throw stateFileError(path, `holds a file that cannot be kept (${problem ?? 'not base64 text'})`)
    files.set(name, Buffer.from(content, 'base64'))
  }
  const {refused} = kept.applyFiles(new Map(), files)
  if (refused.length > 0)
    throw stateFileError(
      path,
      `holds more ./session/ files than state.max_session_files or state.max_bytes allow`,
    )
  readFlowMarks(parsed.flows, kept)
}

/** The marks of private data (SPEC §12.1); what is not a mark of a kept value or of the files is ignored. */
function readFlowMarks(flows: unknown, kept: KeptState): void {
  if (!isRecord(flows)) return
  if (isRecord(flows.values)) {
    for (const [key, tool] of Object.entries(flows.values)) {
      if (typeof tool === 'string' && kept.load(key) !== undefined) kept.flowMarks.set(key, {tool})
    }
  }
  if (typeof flows.files === 'string' && kept.fileCount > 0) kept.filesFlow = {tool: flows.files}
}

/** `,"flows":{...}` when the session holds private data; '' when it holds none. */
function flowMarksJson(kept: KeptState): string {
  if (kept.flowMarks.size === 0 && kept.filesFlow === undefined) return ''
  const values = Object.fromEntries([...kept.flowMarks].map(([key, origin]) => [key, origin.tool]))
  return `,"flows":${JSON.stringify({values, ...(kept.filesFlow && {files: kept.filesFlow.tool})})}`
}

/** Writes `kept` to `path`: a new 0600 file in the same directory, synced, then renamed over it. */
export function writeStateFile(path: string, kept: KeptState): void {
  const values = [...kept.entries()].map(([key, json]) => `${JSON.stringify(key)}:${json}`)
  const files = [...kept.files()].map(
    ([name, data]) => `${JSON.stringify(name)}:"${data.toString('base64')}"`,
  )
  const text = `{"${FORMAT_KEY}":${FORMAT_VERSION},"values":{${values.join(',')}},"files":{${files.join(',')}}${flowMarksJson(kept)}}\n`
  const temporary = join(dirname(path), `.${randomBytes(6).toString('hex')}.ptc-mcp-state`)
  let fd: number | undefined
  try {
    fd = openSync(temporary, CREATE_FLAGS, 0o600)
    const bytes = Buffer.from(text)
    let offset = 0
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset)
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    renameSync(temporary, path)
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    rmSync(temporary, {force: true})
    throw stateFileError(path, `could not be written (${(error as Error).message})`, error)
  }
}
