import {Command, Flags} from '@oclif/core'

import {PtcError} from '../errors.js'
import {isLogLevel, LOG_LEVELS, type LogLevel} from '../log.js'

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

  /**
   * `--log-level`, else PTC_MCP_LOG_LEVEL, else `fallback`: one-shot commands report server
   * problems in their own output, so they default to errors only; `serve` logs warnings.
   */
  protected logLevel(flags: {'log-level'?: LogLevel}, fallback: LogLevel = 'error'): LogLevel {
    if (flags['log-level']) return flags['log-level']
    const fromEnv = process.env.PTC_MCP_LOG_LEVEL
    if (fromEnv === undefined || fromEnv === '') return fallback
    if (isLogLevel(fromEnv)) return fromEnv
    // stderr, never stdout: in `serve` stdout is the protocol.
    process.stderr.write(
      `Warning: PTC_MCP_LOG_LEVEL=${JSON.stringify(fromEnv.slice(0, 40))} is not a log level (${LOG_LEVELS.join(', ')}); using ${fallback}.\n`,
    )
    return fallback
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    if (!(err instanceof PtcError)) return super.catch(err)
    if (this.jsonEnabled()) {
      process.exitCode = err.exitCode
      this.logJson({error: {code: err.code, message: err.message, suggestion: err.suggestion}})
      return
    }
    // oclif prints the message and suggestions on stderr and exits with `exit`.
    return this.error(err.message, {
      exit: err.exitCode,
      code: err.code,
      suggestions: err.suggestion ? [err.suggestion] : undefined,
    })
  }
}
