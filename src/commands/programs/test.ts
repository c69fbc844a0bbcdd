import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {openPrograms} from '../../cli/open-programs.js'
import {formatProgramTests} from '../../cli/programs-display.js'
import {findProgram} from '../../programs/manage.js'
import {programLookup} from '../../programs/run-program.js'
import {type ProgramTestResult, testProgram} from '../../programs/test-program.js'
import {EXIT} from '../../shared/errors.js'

export default class ProgramsTest extends BaseCommand {
  static override summary =
    'Test saved programs against their recordings; --live: against the servers, for drift.'
  static override description =
    "Replays each program (or NAME) with the tool results recorded when it was saved: no server is contacted, and the output and emitted value must be the recorded ones. With --live the calls go to the real servers and each result's shape is compared with the recorded one, naming every drift. Exit 1 when any test fails."
  static override enableJsonFlag = true
  static override examples = [
    '<%= config.bin %> programs test',
    '<%= config.bin %> programs test revenue_trend --live --config examples/config.yaml',
  ]
  static override args = {name: Args.string({description: 'Only this program.'})}
  static override flags = {
    live: Flags.boolean({summary: 'Run against the real servers and compare result shapes.'}),
  }

  async run(): Promise<{ok: boolean; results: ProgramTestResult[]}> {
    const {args, flags} = await this.parse(ProgramsTest)
    const {runtime, programs} = await openPrograms(flags.config, this.logLevel(flags), flags.live)
    try {
      const chosen =
        args.name === undefined
          ? [...programs.current.programs.values()]
          : [findProgram(programs.current, args.name)]
      const engine = await runtime.engine()
      const results: ProgramTestResult[] = []
      for (const program of chosen)
        results.push(
          await testProgram(program, engine, {
            ...(flags.live && {live: runtime.registry}),
            programs: programLookup(() => programs.current),
          }),
        )
      const ok = results.every((result) => result.ok)
      if (!this.jsonEnabled()) this.log(formatProgramTests(results))
      if (!ok) process.exitCode = EXIT.failed
      return {ok, results}
    } finally {
      await runtime.close()
    }
  }
}
