/**
 * Relative paths in a stdio server's `command`, `args` and `cwd` that name existing files are taken
 * from the config file's directory (SPEC §3), so a config works from any working directory.
 */
import {existsSync} from 'node:fs'
import {isAbsolute, resolve} from 'node:path'

import type {ServerConfig} from './schema.js'

import {isStdioServer} from './transports.js'

/**
 * The server with its relative paths resolved against `base` (the config file's directory), where
 * they name something that exists there. A bare command (`node`) is looked up on PATH as always;
 * with a `cwd`, the command and arguments are the server's to resolve against that directory.
 */
export function resolveServerPaths(server: ServerConfig, base: string): ServerConfig {
  if (!isStdioServer(server)) return server
  const existing = (path: string) => {
    const candidate = resolve(base, path)
    return existsSync(candidate) ? candidate : undefined
  }

  if (server.cwd !== undefined) {
    return isAbsolute(server.cwd) ? server : {...server, cwd: existing(server.cwd) ?? server.cwd}
  }

  const looksLikePath = (word: string) => word.includes('/') || word.includes('\\')
  const command =
    looksLikePath(server.command) && !isAbsolute(server.command) ? existing(server.command) : undefined
  const args = server.args.map((arg) => (isRelativePathCandidate(arg) ? (existing(arg) ?? arg) : arg))
  return {...server, command: command ?? server.command, args}
}

/** An argument that may be a relative path: not an option, not a URL, not empty. */
function isRelativePathCandidate(arg: string): boolean {
  return arg !== '' && !arg.startsWith('-') && !isAbsolute(arg) && !arg.includes('://') && !arg.includes('=')
}
