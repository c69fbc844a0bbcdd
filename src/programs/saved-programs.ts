import {type FSWatcher, watch} from 'node:fs'

import type {ToolHost} from '../downstream/index.js'

import {type Logger, silentLogger} from '../shared/log.js'
import {analyzePrograms, type ProgramAnalysis} from './analyze.js'
import {loadPrograms, type ProgramCatalogue, type SavedProgram} from './catalogue.js'
import {type ProgramDirectory} from './directories.js'

/** Changes to the directories settle this long before they are read again. */
export const PROGRAMS_DEBOUNCE_MS = 150
/** Directories watched at most (each a watcher). */
const MAX_WATCHED = 32
/** How deep run_program() calls are followed when deciding what a program may change. */
const MAX_NESTING = 8

const EMPTY: ProgramCatalogue = {programs: new Map(), shadowed: [], skipped: []}

/**
 * The saved programs of a process (SPEC §17): read from the programs directories, analysed with
 * `python`, and read again (debounced) when a directory changes.
 */
export class SavedPrograms {
  private catalogue: ProgramCatalogue = EMPTY
  private readonly analyses = new Map<string, ProgramAnalysis>()
  private readonly watchers: FSWatcher[] = []
  private timer: NodeJS.Timeout | undefined
  private reading: Promise<void> | undefined
  private closed = false
  private onChange: ((catalogue: ProgramCatalogue) => void) | undefined

  constructor(
    readonly directories: readonly ProgramDirectory[],
    private readonly python: string,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** The programs as last read. */
  get current(): ProgramCatalogue {
    return this.catalogue
  }

  /** What a program about to be saved declares (analyze.py), with the interpreter the programs are read with. */
  async analyze(source: string): Promise<ProgramAnalysis> {
    const [analysis] = await analyzePrograms(this.python, [source])
    return analysis!
  }

  /** Reads the directories (again). A failure keeps the programs read before, and is logged. */
  async reload(): Promise<ProgramCatalogue> {
    try {
      this.catalogue = await loadPrograms(this.directories, this.python, this.analyses)
      // Only unchanged sources are worth keeping: the others would never be looked up again.
      if (this.analyses.size > 4 * Math.max(16, this.catalogue.programs.size)) this.analyses.clear()
    } catch (error) {
      this.logger.warn(`saved programs: ${(error as Error).message}`)
    }
    return this.catalogue
  }

  /** Watches the directories that exist; `onChange` is called after each settled change has been read. */
  watch(onChange: (catalogue: ProgramCatalogue) => void): void {
    this.onChange = onChange
    for (const {dir} of this.directories.slice(0, MAX_WATCHED)) {
      try {
        const watcher = watch(dir, {persistent: false}, () => this.changed())
        watcher.on('error', () => watcher.close())
        this.watchers.push(watcher)
      } catch {
        // A directory that does not exist yet is not watched: a save through serve (changed()) or
        // serve's next start sees it.
      }
    }
  }

  /** Reads the directories again soon (debounced), then tells the watcher: a directory changed. */
  changed(): void {
    const {onChange} = this
    if (this.closed || !onChange) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      // One reading at a time: a change during one is read after it.
      this.reading = (this.reading ?? Promise.resolve()).then(async () => {
        if (this.closed) return
        onChange(await this.reload())
      })
    }, PROGRAMS_DEBOUNCE_MS)
    this.timer.unref()
  }

  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    for (const watcher of this.watchers) watcher.close()
    this.watchers.length = 0
  }
}

/**
 * Whether a program only reads (SPEC §17: `readOnlyHint` of its tool): every tool it calls declares
 * `readOnlyHint: true`, and so does every program it runs; a run_program name computed at run time
 * could be anything.
 */
export function programReadsOnly(
  program: SavedProgram,
  programs: ReadonlyMap<string, SavedProgram>,
  host: Pick<ToolHost, 'getTool'>,
  depth = 0,
): boolean {
  if (depth > MAX_NESTING || program.dynamicPrograms) return false
  if (!program.tools.every((name) => host.getTool(name)?.annotations?.readOnlyHint === true)) return false
  return program.programs.every((name) => {
    const other = programs.get(name)
    return other !== undefined && other !== program && programReadsOnly(other, programs, host, depth + 1)
  })
}
