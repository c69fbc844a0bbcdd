import {createHash} from 'node:crypto'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {analyzePrograms, type ProgramAnalysis} from './analyze.js'
import {type ProgramDirectory, type ProgramScope} from './directories.js'
import {programNameProblem} from './names.js'

/** The largest program file read (SPEC §15: bounded before it is read). */
export const MAX_PROGRAM_BYTES = 1024 * 1024
/** Programs read from one directory at most. */
const MAX_PROGRAMS_PER_DIR = 1000

/** A saved program (SPEC §17): a `.py` file of a programs directory. */
export interface SavedProgram extends ProgramAnalysis {
  name: string
  path: string
  scope: ProgramScope
  source: string
  /** The first line of the module docstring ('' when there is none). */
  description: string
  /** The rest of the docstring. */
  longDescription: string
}

/** A program of the same name found later than the one used (SPEC §17: the first found wins). */
export interface ShadowedProgram {
  name: string
  path: string
  /** The path of the program used. */
  by: string
}

/** A file that is no saved program (a bad name, too large, unreadable). */
export interface SkippedFile {
  path: string
  reason: string
}

export interface ProgramCatalogue {
  /** By name, in the order found; a program with `problem` is not exposed as a tool. */
  programs: Map<string, SavedProgram>
  shadowed: ShadowedProgram[]
  skipped: SkippedFile[]
}

interface FoundFile {
  name: string
  path: string
  scope: ProgramScope
  source: string
}

/**
 * Reads the programs directories and analyses every program (one Python start for all; an
 * unchanged source is not analysed again by the same `cache`).
 */
export async function loadPrograms(
  directories: readonly ProgramDirectory[],
  python: string,
  cache: Map<string, ProgramAnalysis> = new Map(),
): Promise<ProgramCatalogue> {
  const skipped: SkippedFile[] = []
  const shadowed: ShadowedProgram[] = []
  const used = new Map<string, FoundFile>()
  for (const directory of directories) {
    for (const file of readDirectory(directory, skipped)) {
      const first = used.get(file.name)
      if (first) shadowed.push({name: file.name, path: file.path, by: first.path})
      else used.set(file.name, file)
    }
  }
  const files = [...used.values()]
  const keys = files.map((file) => createHash('sha256').update(file.source).digest('hex'))
  const missing = [...new Set(keys.filter((key) => !cache.has(key)))]
  if (missing.length > 0) {
    const sources = missing.map((key) => files[keys.indexOf(key)]!.source)
    const analyses = await analyzePrograms(python, sources)
    for (const [index, key] of missing.entries()) cache.set(key, analyses[index]!)
  }
  const programs = new Map<string, SavedProgram>()
  for (const [index, file] of files.entries()) {
    const analysis = cache.get(keys[index]!)!
    const [first = '', ...rest] = (analysis.docstring ?? '').split('\n')
    programs.set(file.name, {
      ...analysis,
      ...file,
      description: first.trim(),
      longDescription: rest.join('\n').trim(),
    })
  }
  return {programs, shadowed, skipped}
}

function readDirectory({dir, scope}: ProgramDirectory, skipped: SkippedFile[]): FoundFile[] {
  let names: string[]
  try {
    names = readdirSync(dir)
      .filter((name) => name.endsWith('.py'))
      .sort()
  } catch {
    return [] // a directory that does not exist holds no programs
  }
  const found: FoundFile[] = []
  for (const entry of names.slice(0, MAX_PROGRAMS_PER_DIR)) {
    const path = join(dir, entry)
    const name = entry.slice(0, -'.py'.length)
    const problem = programNameProblem(name)
    if (problem) {
      skipped.push({path, reason: problem})
      continue
    }
    try {
      const stat = statSync(path)
      if (!stat.isFile()) throw new Error('not a regular file')
      if (stat.size > MAX_PROGRAM_BYTES) throw new Error(`over ${MAX_PROGRAM_BYTES} bytes`)
      found.push({name, path, scope, source: readFileSync(path, 'utf8')})
    } catch (error) {
      skipped.push({path, reason: (error as Error).message})
    }
  }
  return found
}
