import {homedir} from 'node:os'
import {isAbsolute, join} from 'node:path'

const DEFAULTS = {cache: ['.cache'], config: ['.config'], state: ['.local', 'state']} as const
const VARIABLES = {cache: 'XDG_CACHE_HOME', config: 'XDG_CONFIG_HOME', state: 'XDG_STATE_HOME'} as const

/**
 * The XDG base directory of `kind` (`$XDG_CACHE_HOME`, else `~/.cache`, and so on). A relative
 * value is ignored: the XDG spec calls it invalid.
 */
export function xdgHome(
  kind: keyof typeof DEFAULTS,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  const value = env[VARIABLES[kind]]
  return value && isAbsolute(value) ? value : join(home, ...DEFAULTS[kind])
}
