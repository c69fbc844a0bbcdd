import type {Hook} from '@oclif/core'

import {EXIT} from '../shared/errors.js'
import {levenshtein} from '../shared/naming.js'

/**
 * A misspelt command gets the closest ones, and where the list is (oclif's own message says only
 * "command not found"). Ours rather than @oclif/plugin-not-found: its current major wants Node 22
 * and @oclif/core 5, and the one before pulls in an interactive prompt library.
 */
const hook: Hook<'command_not_found'> = async function (options) {
  const commands = options.config.commands.filter((command) => !command.hidden).map((command) => command.id)
  const closest = closestCommand(options.id, commands)
  const {bin} = options.config
  const didYouMean = closest === undefined ? '' : ` Did you mean "${closest}"?`
  this.error(
    `"${options.id}" is not a ${bin} command.${didYouMean} Run \`${bin} help\` for the list of commands.`,
    {
      exit: EXIT.usage,
    },
  )
}

export default hook

/** The command a typo most likely meant: fewest edits, a swap of two letters counting as one. */
export function closestCommand(typed: string, commands: readonly string[]): string | undefined {
  const letters = (word: string) => [...word].sort().join('')
  const scored = commands.map((command) => ({
    command,
    score: levenshtein(typed, command) - (letters(typed) === letters(command) ? 1 : 0),
  }))
  const best = scored.sort((a, b) => a.score - b.score || a.command.localeCompare(b.command, 'en'))[0]
  return best && best.score <= Math.max(1, Math.floor(typed.length / 3)) ? best.command : undefined
}
