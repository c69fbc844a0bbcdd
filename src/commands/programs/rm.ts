import {Args} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {openPrograms} from '../../cli/open-programs.js'
import {findProgram, programDir} from '../../programs/manage.js'
import {removeProgram} from '../../programs/save.js'

export default class ProgramsRm extends BaseCommand {
  static override summary = 'Remove a saved program and its recording.'
  static override enableJsonFlag = true
  static override examples = ['<%= config.bin %> programs rm revenue_trend']
  static override args = {
    name: Args.string({description: 'The program, as `programs list` names it.', required: true}),
  }

  async run(): Promise<{removed: string}> {
    const {args, flags} = await this.parse(ProgramsRm)
    const {runtime, programs} = await openPrograms(flags.config, this.logLevel(flags))
    try {
      const program = findProgram(programs.current, args.name)
      removeProgram(programDir(program), program.name)
      if (!this.jsonEnabled()) this.log(`removed ${program.path}`)
      return {removed: program.path}
    } finally {
      await runtime.close()
    }
  }
}
