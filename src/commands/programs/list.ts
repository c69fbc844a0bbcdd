import {BaseCommand} from '../../cli/base-command.js'
import {openPrograms} from '../../cli/open-programs.js'
import {formatProgramList} from '../../cli/programs-display.js'
import {type ProgramList, programList} from '../../programs/manage.js'

export default class ProgramsList extends BaseCommand {
  static override summary = 'List the saved programs: each is a tool of serve.'
  static override description =
    "Saved programs are .py files in the project's .ptc-mcp/programs/, the user's $XDG_CONFIG_HOME/ptc-mcp/programs/ and programs.dirs; the first found wins on a name clash."
  static override enableJsonFlag = true
  static override examples = ['<%= config.bin %> programs list', '<%= config.bin %> programs list --json']

  async run(): Promise<ProgramList> {
    const {flags} = await this.parse(ProgramsList)
    const {runtime, programs} = await openPrograms(flags.config, this.logLevel(flags))
    try {
      const list = programList(programs.current)
      if (!this.jsonEnabled()) this.log(formatProgramList(list))
      return list
    } finally {
      await runtime.close()
    }
  }
}
