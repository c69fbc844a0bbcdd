import {serverPrefix} from '../../shared/naming.js'
import {helpersOf} from './program-helpers.js'

/**
 * The configured servers a program can reach, read from its text (SPEC §9, `run`): those whose
 * `mcp__<server>__` prefix it names, or every server when it uses a discovery helper (it may call
 * whatever it finds). A name the program builds at run time is not seen: `run --server` adds it.
 */
export function serversNamedBy(code: string, servers: readonly string[]): string[] {
  if (helpersOf('discovery').some((helper) => new RegExp(`\\b${helper}\\b`).test(code))) return [...servers]
  return servers.filter((server) => code.includes(serverPrefix(server)))
}
