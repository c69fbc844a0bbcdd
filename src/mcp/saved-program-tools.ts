import type {McpServer, RegisteredTool, StandardSchemaWithJSON} from '@modelcontextprotocol/server'

import type {ProgramCatalogue, SavedProgram} from '../programs/catalogue.js'
import type {SavedPrograms} from '../programs/saved-programs.js'
import type {Runtime} from '../runtime.js'
import type {Logger} from '../shared/log.js'
import type {ProgramCall} from './execute-program.js'

import {SchemaValidator} from '../downstream/index.js'
import {RESERVED_PROGRAM_NAMES} from '../programs/names.js'
import {programReadsOnly} from '../programs/saved-programs.js'
import {listedOutputSchema} from './execute-output-schema.js'
import {MAX_RESULT_SIZE_META_KEY, maxResultSizeChars} from './execute-program.js'

/** The saved programs of each runtime, once read (serve reads them after its first answer). */
const loaded = new WeakMap<Runtime, SavedPrograms>()

/** The saved programs' tools shown at most (each is a tool listed to the model). */
const MAX_PROGRAM_TOOLS = 200

/**
 * Each saved program as a tool of serve (SPEC §17): listed with the input schema of its `main`,
 * `readOnlyHint` only when every tool it calls only reads, arguments checked before anything runs,
 * and run as execute_program runs a program. Registered again when the directories change (the
 * SDK then sends `notifications/tools/list_changed`). Off with `programs.expose: false`. Resolves once
 * they are first listed (or could not be read).
 */
export function registerSavedProgramTools(
  server: McpServer,
  runtime: Runtime,
  logger: Logger,
  call: ProgramCall,
): Promise<void> {
  if (!runtime.config.programs.expose) return Promise.resolve()
  const validator = new SchemaValidator()
  const registered = new Map<string, {tool: RegisteredTool; source: string}>()
  const show = (catalogue: ProgramCatalogue): void => {
    const exposed = [...catalogue.programs.values()]
      .filter((program) => program.problem === undefined && !RESERVED_PROGRAM_NAMES.has(program.name))
      .slice(0, MAX_PROGRAM_TOOLS)
    const names = new Set(exposed.map((program) => program.name))
    let changed = false
    for (const [name, entry] of registered) {
      if (names.has(name) && catalogue.programs.get(name)?.source === entry.source) continue
      entry.tool.remove()
      registered.delete(name)
      changed = true
    }
    for (const program of exposed) {
      if (registered.has(program.name)) continue
      const tool = server.registerTool(
        program.name,
        {
          description: toolDescription(program),
          inputSchema: argumentsSchema(program.inputSchema, validator),
          // Answered as execute_program answers (SPEC §5): the same structure, inline in Claude Code.
          outputSchema: listedOutputSchema,
          _meta: {
            [MAX_RESULT_SIZE_META_KEY]: maxResultSizeChars(runtime.config.execution, call.limitChars),
          },
        },
        (args, ctx) =>
          call(
            program.source,
            ctx,
            program.callsMain ? {mainArguments: args as Record<string, unknown>} : {},
          ),
      )
      // Read when listed: the servers whose tools decide it may connect after the program is read.
      Object.defineProperty(tool, 'annotations', {
        configurable: true,
        enumerable: true,
        get: () => ({readOnlyHint: programReadsOnly(program, catalogue.programs, runtime.registry)}),
        set() {},
      })
      registered.set(program.name, {tool, source: program.source})
      changed = true
    }
    if (changed)
      logger.debug(`saved programs served as tools: ${[...registered.keys()].join(', ') || 'none'}`)
  }
  // Read once serve has answered its first request: reading them starts Python (SPEC §5).
  return runtime.warm
    .then(async () => runtime.programs())
    .then(
      (programs) => {
        loaded.set(runtime, programs)
        show(programs.current)
        programs.watch(show)
      },
      (error: unknown) => logger.warn(`saved programs are not served: ${String(error)}`),
    )
}

function toolDescription(program: SavedProgram): string {
  const head = program.description || `Saved program ${program.name}.`
  const body = program.longDescription ? `\n\n${program.longDescription}` : ''
  return `${head}${body}\n\n(A saved program of ptc-mcp: ${program.path})`
}

/**
 * The program's parameters as the SDK takes an input schema: listed as they are, and checked with
 * the Ajv the downstream tools' arguments are checked with (`argument 'n': must be integer`).
 */
function argumentsSchema(
  schema: Record<string, unknown>,
  validator: SchemaValidator,
): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'ptc-mcp',
      jsonSchema: {input: () => schema, output: () => schema},
      validate(value: unknown) {
        const problems = validator.checkArguments(schema, (value ?? {}) as Record<string, unknown>)
        return problems.length === 0 ? {value} : {issues: problems.map((message) => ({message}))}
      },
    },
  } as StandardSchemaWithJSON
}

/** Saved programs named at most in list_callable_tools' line. */
const MAX_LISTED_PROGRAMS = 50

/**
 * list_callable_tools' line for the saved programs (SPEC §17), apart from the downstream tools:
 * `SAVED PROGRAMS (...): name(n, prefix=...): description; ...`, or undefined when there are none.
 */
export function savedProgramsLine(runtime: Runtime): string | undefined {
  // Only once read: list_callable_tools never waits for Python.
  const catalogue = loaded.get(runtime)?.current
  if (!catalogue) return undefined
  const programs = [...catalogue.programs.values()].filter((program) => program.problem === undefined)
  if (programs.length === 0) return undefined
  const entries = programs.slice(0, MAX_LISTED_PROGRAMS).map((program) => {
    const properties = Object.keys(
      (program.inputSchema.properties as Record<string, unknown> | undefined) ?? {},
    )
    return `${program.name}(${properties.join(', ')})${program.description ? `: ${program.description}` : ''}`
  })
  const more =
    programs.length > MAX_LISTED_PROGRAMS ? `; and ${programs.length - MAX_LISTED_PROGRAMS} more` : ''
  const how = runtime.config.programs.expose
    ? 'each also a tool of this server; in a program: await run_program("name", **arguments)'
    : 'in a program: await run_program("name", **arguments)'
  return `SAVED PROGRAMS (${how}): ${entries.join('; ')}${more}`
}
