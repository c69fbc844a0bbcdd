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
  const {bin} = options.config
  const {typed, closest, rest} = misspeltCommand(options.id, commands)
  const spaced = (id: string) => id.replaceAll(':', ' ')
  const corrected =
    closest !== undefined && rest.length > 0 ? ` (${bin} ${spaced([closest, ...rest].join(':'))})` : ''
  const didYouMean = closest === undefined ? '' : ` Did you mean "${spaced(closest)}"${corrected}?`
  this.error(
    `"${spaced(typed)}" is not a ${bin} command.${didYouMean} Run \`${bin} help\` for the list of commands.`,
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

/**
 * oclif joins a command's words and its arguments into one id (`inspct mcp__fs__read_file` arrives
 * as `inspct:mcp__fs__read_file`): the longest leading part close to a command is the misspelt
 * command, and what follows it its arguments. Without a close one, the first word is what was typed.
 */
export function misspeltCommand(
  id: string,
  commands: readonly string[],
): {typed: string; closest: string | undefined; rest: string[]} {
  const words = id.split(':')
  for (let count = words.length; count > 0; count--) {
    const typed = words.slice(0, count).join(':')
    const closest = closestCommand(typed, commands)
    if (closest !== undefined) return {typed, closest, rest: words.slice(count)}
  }
  return {typed: words[0]!, closest: undefined, rest: words.slice(1)}
}
