import {randomBytes} from 'node:crypto'
import {existsSync, mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {PtcError} from '../shared/errors.js'
import {programNameProblem} from './names.js'

export interface SaveRequest {
  /** The programs directory written to (made when missing). */
  dir: string
  name: string
  code: string
  /** Becomes the module docstring when the code has none. */
  description?: string
  /** Overwrite a program of that name in `dir`. Default false: an existing one is an error. */
  replace?: boolean
  /** `<name>.calls.json`: the recording of the run (recording.ts); absent: none is written (an old one is removed). */
  recording?: string
}

export interface SavedFiles {
  path: string
  recordingPath?: string
}

/** `<dir>/<name>.py` and `<dir>/<name>.calls.json`. */
export function programFiles(dir: string, name: string): {path: string; recordingPath: string} {
  return {path: join(dir, `${name}.py`), recordingPath: join(dir, `${name}.calls.json`)}
}

/** The code as saved: a description becomes its docstring when it has none of its own. */
export function withDocstring(code: string, description?: string): string {
  const text = description?.trim()
  const body = code.endsWith('\n') ? code : `${code}\n`
  if (!text || /^\s*(?:[rRuU]?)(?:"""|''')/.test(code)) return body
  const escaped = text.replaceAll('\\', '\\\\').replaceAll('"""', '\\"\\"\\"')
  return `"""${escaped}"""\n\n${body}`
}

/**
 * Saves a program (SPEC §17): written to a temporary file and renamed, so a reader never sees half
 * of it; never over an existing program unless `replace`.
 */
export function saveProgram(request: SaveRequest): SavedFiles {
  const problem = programNameProblem(request.name)
  if (problem) throw new PtcError('USAGE', problem)
  const {path, recordingPath} = programFiles(request.dir, request.name)
  if (!request.replace && existsSync(path))
    throw new PtcError('FILE_EXISTS', `a program named ${request.name} exists: ${path}`, {
      suggestion: 'pass replace: true (--replace) to overwrite it, or choose another name',
    })
  mkdirSync(request.dir, {recursive: true, mode: 0o755})
  writeAtomically(path, withDocstring(request.code, request.description))
  if (request.recording === undefined) {
    rmSync(recordingPath, {force: true})
    return {path}
  }
  writeAtomically(recordingPath, request.recording)
  return {path, recordingPath}
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
  try {
    writeFileSync(temporary, text, {flag: 'wx', mode: 0o644})
    renameSync(temporary, path)
  } catch (error) {
    try {
      unlinkSync(temporary)
    } catch {
      // never written
    }
    throw error
  }
}

/** Removes a program and its recording; false when there was no such program in `dir`. */
export function removeProgram(dir: string, name: string): boolean {
  const {path, recordingPath} = programFiles(dir, name)
  if (!existsSync(path)) return false
  rmSync(path)
  rmSync(recordingPath, {force: true})
  return true
}
