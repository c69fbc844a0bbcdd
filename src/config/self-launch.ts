/** A server entry that would start ptc-mcp itself, which would start it again, and so on. */
import {basename, join, resolve} from 'node:path'

import type {ServerConfig} from './schema.js'

import {PACKAGE_ROOT} from '../shared/package-root.js'
import {isStdioServer} from './transports.js'

const OWN_BINS = new Set([join(PACKAGE_ROOT, 'bin', 'dev.js'), join(PACKAGE_ROOT, 'bin', 'run.js')])

/**
 * Whether a server entry would start `ptc-mcp serve`: the `ptc-mcp` bin (also through npx, with a
 * version, or a path ending in it), or this package's bin/run.js, together with a `serve` argument.
 */
export function launchesSelf(server: ServerConfig): boolean {
  if (!isStdioServer(server)) return false
  // A command run through a shell (`sh -c "ptc-mcp serve"`) hides the words in one argument.
  const words = [server.command, ...server.args].flatMap((token) => token.split(/\s+/)).filter(Boolean)
  if (!words.includes('serve')) return false
  const base = server.cwd ?? process.cwd()
  return words.some((word) => {
    const name = basename(word).replace(/\.(cmd|exe|js)$/, '')
    if (/^ptc-mcp(@.*)?$/.test(name)) return true
    if (/(^|[\\/])ptc-mcp[\\/]bin[\\/](run|dev)\.js$/.test(word)) return true
    return OWN_BINS.has(resolve(base, word))
  })
}
