import type {ProgramCatalogue} from './catalogue.js'

import {SchemaValidator, ToolError} from '../downstream/index.js'
import {type ProgramLookup} from '../execution/index.js'
import {suggestNames} from '../shared/naming.js'

/**
 * run_program()'s view of the saved programs (SPEC §17): the program by name, its arguments checked
 * against its parameters before it runs (`argument 'n': must be integer`), as its tool checks them.
 */
export function programLookup(
  catalogue: () => ProgramCatalogue,
  validator: SchemaValidator = new SchemaValidator(),
): ProgramLookup {
  return (name, args) => {
    const {programs} = catalogue()
    const program = programs.get(name)
    if (!program) {
      const close = suggestNames(name, [...programs.keys()])
      throw new ToolError(
        `no saved program named ${JSON.stringify(name)}${close.length > 0 ? `; did you mean ${close.join(' or ')}?` : ''}`,
        {kind: 'unknown_tool'},
      )
    }
    if (program.problem)
      throw new ToolError(`saved program ${name} cannot run: ${program.path} ${program.problem}`, {
        kind: 'invalid_arguments',
      })
    const problems = validator.checkArguments(program.inputSchema, args)
    if (problems.length > 0)
      throw new ToolError(`run_program("${name}"): ${problems.join('; ')}`, {kind: 'invalid_arguments'})
    return {code: program.source, main: program.callsMain, arguments: args}
  }
}
