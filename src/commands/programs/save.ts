import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {openPrograms} from '../../cli/open-programs.js'
import {projectProgramsDir, userProgramsDir} from '../../programs/directories.js'
import {readProgramFile} from '../../programs/manage.js'
import {type SavedFiles, saveProgram} from '../../programs/save.js'

export default class ProgramsSave extends BaseCommand {
  static override summary = 'Save a program file as a saved program (a tool of serve).'
  static override description =
    "Copies FILE to the user's programs directory (--to project: the project's .ptc-mcp/programs/, shared through its repository) as NAME.py. Its docstring's first line is the tool's description; the keyword-only parameters of `async def main(*, ...)` are its arguments. Never overwrites without --replace."
  static override enableJsonFlag = true
  static override examples = [
    '<%= config.bin %> programs save revenue_trend examples/programs/revenue-trend.py',
    '<%= config.bin %> programs save revenue_trend revenue-trend.py --to project --replace',
  ]
  static override args = {
    name: Args.string({description: 'The name: [a-z][a-z0-9_]*.', required: true}),
    file: Args.string({description: 'The Python program.', required: true}),
  }
  static override flags = {
    to: Flags.option({
      options: ['user', 'project'] as const,
      default: 'user',
      summary: 'Which programs directory.',
    })(),
    replace: Flags.boolean({summary: 'Overwrite a saved program of that name.'}),
    description: Flags.string({summary: 'The docstring to give a program that has none.'}),
  }

  async run(): Promise<SavedFiles> {
    const {args, flags} = await this.parse(ProgramsSave)
    const code = readProgramFile(args.file)
    const dir = flags.to === 'project' ? projectProgramsDir(process.cwd()) : userProgramsDir()
    const saved = saveProgram({
      dir,
      name: args.name,
      code,
      description: flags.description,
      replace: flags.replace,
    })
    const {runtime, programs} = await openPrograms(flags.config, this.logLevel(flags))
    try {
      const problem = programs.current.programs.get(args.name)?.problem
      if (!this.jsonEnabled()) {
        this.log(`saved ${args.name}: ${saved.path}`)
        if (problem) this.warn(`${args.name} is not a tool until this is fixed: ${problem}`)
      }
      return saved
    } finally {
      await runtime.close()
    }
  }
}
