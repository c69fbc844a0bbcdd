import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {openPrograms} from '../../cli/open-programs.js'
import {findProgram, type ProgramSummary, summary} from '../../programs/manage.js'
import {terminalSafe as safe} from '../../shared/terminal-safe.js'

export type ProgramShown = ProgramSummary & {inputSchema: Record<string, unknown>; source: string}

export default class ProgramsShow extends BaseCommand {
  static override summary = 'Show a saved program: where it is, its parameters, the tools it calls, its code.'
  static override enableJsonFlag = true
  static override examples = [
    '<%= config.bin %> programs show revenue_trend',
    '<%= config.bin %> programs show revenue_trend --json',
  ]
  static override args = {
    name: Args.string({description: 'The program, as `programs list` names it.', required: true}),
  }

  async run(): Promise<ProgramShown> {
    const {args, flags} = await this.parse(ProgramsShow)
    const {runtime, programs} = await openPrograms(flags.config, this.logLevel(flags))
    try {
      const program = findProgram(programs.current, args.name)
      const shown = {...summary(program), inputSchema: program.inputSchema, source: program.source}
      if (!this.jsonEnabled())
        this.log(
          [
            `${program.name} (${program.scope}): ${program.path}`,
            ...(program.problem ? [`not a tool: ${safe(program.problem)}`] : []),
            `description: ${safe(program.description) || '(none: the module has no docstring)'}`,
            `parameters: ${JSON.stringify(program.inputSchema)}`,
            `calls: ${program.tools.join(', ') || '(no tools)'}`,
            `recording: ${shown.recorded ? 'yes' : 'no'}`,
            '',
            safe(program.source),
          ].join('\n'),
        )
      return shown
    } finally {
      await runtime.close()
    }
  }
}
