import {Command, Flags} from '@oclif/core'

import {PtcError} from '../shared/errors.js'
import {LOG_LEVELS, type LogLevel} from '../shared/log.js'
import {resolveLogLevel} from './log-level.js'

/**
 * Shared flags (`--config`, `--log-level`) and one place that turns the user's problems (PtcError)
 * into a message, a suggestion and a documented exit code. Anything else is a bug and keeps its stack.
 */
export abstract class BaseCommand extends Command {
  static override baseFlags = {
    config: Flags.string({
      char: 'c',
      summary: 'Path to config.yaml.',
      description:
        "Default: $PTC_MCP_CONFIG, then ./ptc-mcp.yaml, then ./config.yaml when its keys are all ptc-mcp's, then $XDG_CONFIG_HOME/ptc-mcp/config.yaml (~/.config/ptc-mcp/config.yaml).",
      helpGroup: 'GLOBAL',
    }),
    'log-level': Flags.option({
      options: LOG_LEVELS,
      summary: 'Log level on stderr (default: $PTC_MCP_LOG_LEVEL or warn).',
      helpGroup: 'GLOBAL',
    })(),
  }

  /** `--log-level`, else PTC_MCP_LOG_LEVEL, else `fallback` (see {@link resolveLogLevel}). */
  protected logLevel(flags: {'log-level'?: LogLevel}, fallback: LogLevel = 'error'): LogLevel {
    return resolveLogLevel(flags['log-level'], fallback)
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    if (!(err instanceof PtcError)) return super.catch(err)
    if (this.jsonEnabled()) {
      process.exitCode = err.exitCode
      this.logJson({error: {code: err.code, message: err.message, suggestion: err.suggestion}})
      return
    }
    // oclif prints the message and suggestions on stderr and exits with `exit`.
    return this.error(err.message, cliErrorOptions(err))
  }
}

/** How oclif is told to print a PtcError: its exit code, code and suggestion. */
export function cliErrorOptions(err: PtcError): {code: string; exit: number; suggestions?: string[]} {
  return {exit: err.exitCode, code: err.code, suggestions: err.suggestion ? [err.suggestion] : undefined}
}
