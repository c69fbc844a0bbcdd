import {readFileSync, statSync} from 'node:fs'
import {dirname} from 'node:path'

import type {ProgramCatalogue, SavedProgram} from './catalogue.js'

import {PtcError} from '../shared/errors.js'
import {suggestNames} from '../shared/naming.js'
import {MAX_PROGRAM_BYTES} from './catalogue.js'
import {type ProgramScope} from './directories.js'
import {readRecording} from './test-program.js'

/** One saved program as `programs list` shows it. */
export interface ProgramSummary {
  name: string
  scope: ProgramScope
  path: string
  description: string
  /** main()'s parameters, by name; required ones first. */
  parameters: string[]
  tools: string[]
  /** A recording of its calls is beside it (`programs test` can replay it). */
  recorded: boolean
  /** Why it is not a tool (a parameter that has no JSON Schema, a syntax error). */
  problem?: string
}

export interface ProgramList {
  programs: ProgramSummary[]
  /** Programs of the same name found after the one used (SPEC §17: the first found wins). */
  shadowed: {name: string; path: string; by: string}[]
  skipped: {path: string; reason: string}[]
}

export function summary(program: SavedProgram): ProgramSummary {
  const properties = program.inputSchema.properties as Record<string, unknown> | undefined
  return {
    name: program.name,
    scope: program.scope,
    path: program.path,
    description: program.description,
    parameters: Object.keys(properties ?? {}),
    tools: program.tools,
    recorded: readRecording(program) !== undefined,
    ...(program.problem !== undefined && {problem: program.problem}),
  }
}

export function programList(catalogue: ProgramCatalogue): ProgramList {
  return {
    programs: [...catalogue.programs.values()].map(summary),
    shadowed: catalogue.shadowed,
    skipped: catalogue.skipped,
  }
}

/** The program named `name`, or a PtcError naming the closest names. */
export function findProgram(catalogue: ProgramCatalogue, name: string): SavedProgram {
  const program = catalogue.programs.get(name)
  if (program) return program
  const close = suggestNames(name, [...catalogue.programs.keys()])
  throw new PtcError('TOOL_NOT_FOUND', `no saved program named ${name}`, {
    exitCode: 1,
    suggestion: close.length > 0 ? `Did you mean ${close.join(' or ')}?` : 'Run "ptc-mcp programs list".',
  })
}

/** A program file to save, read within the bound, or a PtcError. */
export function readProgramFile(file: string): string {
  try {
    if (statSync(file).size > MAX_PROGRAM_BYTES) throw new Error(`over ${MAX_PROGRAM_BYTES} bytes`)
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new PtcError('SOURCE_NOT_FOUND', `cannot read ${file}: ${(error as Error).message}`, {
      suggestion: 'Pass the path of a .py file.',
      cause: error,
    })
  }
}

/** The directory a program lives in. */
export function programDir(program: SavedProgram): string {
  return dirname(program.path)
}
