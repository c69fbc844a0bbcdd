/**
 * `ptc-mcp serve` without oclif: a client waits only ~2.5 s for serve's first answer (SPEC §5), and
 * loading oclif's command machinery costs a good part of that. Only plain arguments are taken
 * here (`--config`/`-c` and `--log-level`, each once, with a value); anything else (`--help`, an
 * unknown flag, a bad value) is left to oclif, so its help and its errors stay exactly its own.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {runServe} from '../mcp/serve.js'
import {PtcError} from '../shared/errors.js'
import {isLogLevel, type LogLevel} from '../shared/log.js'
import {PACKAGE_ROOT} from '../shared/package-root.js'
import {resolveLogLevel} from './log-level.js'

export interface ServeFlags {
  config?: string
  'log-level'?: LogLevel
}

const FLAG_NAMES: Record<string, keyof ServeFlags> = {
  '--config': 'config',
  '-c': 'config',
  '--log-level': 'log-level',
}

/** The flags of `serve ARGS`, or undefined when oclif should parse them. */
export function plainServeFlags(args: readonly string[]): ServeFlags | undefined {
  const flags: ServeFlags = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1
    const name = FLAG_NAMES[equals === -1 ? arg : arg.slice(0, equals)]
    if (name === undefined || flags[name] !== undefined) return undefined
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1)
    if (value === undefined || value === '' || (equals === -1 && value.startsWith('-'))) return undefined
    if (name === 'log-level') {
      if (!isLogLevel(value)) return undefined
      flags[name] = value
    } else flags[name] = value
  }
  return flags
}

/**
 * Runs `serve` with `args` (what follows `serve`) when they are plain and returns true once it has
 * stopped (the caller exits: downstream children and sockets are closed, nothing else is worth
 * waiting for); returns false, having done nothing, when they are not.
 */
export async function serveFastPath(args: readonly string[]): Promise<boolean> {
  const flags = plainServeFlags(args)
  if (!flags) return false
  const {version} = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version: string}
  try {
    await runServe({configFlag: flags.config, logLevel: resolveLogLevel(flags['log-level'], 'warn'), version})
  } catch (error) {
    await reportAsOclif(error)
  }
  return true
}

/** Prints a failure and exits as oclif would have for the `serve` command (base-command.ts). */
async function reportAsOclif(error: unknown): Promise<void> {
  const [{Errors, handle}, {cliErrorOptions}] = await Promise.all([
    import('@oclif/core'),
    import('./base-command.js'),
  ])
  try {
    if (error instanceof PtcError) Errors.error(error.message, cliErrorOptions(error))
    throw error
  } catch (error_) {
    // Prints it and exits with its code.
    await handle(error_ as Error)
  }
}
