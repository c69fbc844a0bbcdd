import chalk from 'chalk'

import type {ProgramList} from '../programs/manage.js'
import type {ProgramTestResult} from '../programs/test-program.js'

import {terminalSafe as safe} from '../shared/terminal-safe.js'
import {firstLine, table} from './display.js'

export function formatProgramList(list: ProgramList): string {
  const lines =
    list.programs.length === 0
      ? [
          chalk.dim(
            '(no saved programs: save one with execute_program save_as, or `ptc-mcp programs save NAME FILE`)',
          ),
        ]
      : [
          table(
            ['PROGRAM', 'WHERE', 'PARAMETERS', 'DESCRIPTION'],
            list.programs.map((program) => [
              program.name,
              program.scope,
              program.parameters.join(', ') || '-',
              program.problem
                ? chalk.red(`not a tool: ${safe(program.problem)}`)
                : firstLine(safe(program.description), 60),
            ]),
          ),
        ]
  for (const shadowed of list.shadowed)
    lines.push(
      chalk.yellow(`${shadowed.path} is not used: ${shadowed.name} is ${shadowed.by} (the first found wins)`),
    )
  for (const skipped of list.skipped)
    lines.push(chalk.yellow(`${skipped.path} skipped: ${safe(skipped.reason)}`))
  return lines.join('\n')
}

export function formatProgramTests(results: ProgramTestResult[]): string {
  if (results.length === 0) return chalk.dim('(no saved programs to test)')
  return results
    .map((result) => {
      if (result.skipped) return `${chalk.dim('skip')} ${result.name}: ${result.skipped}`
      const head = `${result.ok ? chalk.green('pass') : chalk.red('FAIL')} ${result.name} (${result.mode})`
      return [head, ...result.problems.map((problem) => `  ${safe(problem)}`)].join('\n')
    })
    .join('\n')
}
