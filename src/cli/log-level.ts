import {isLogLevel, LOG_LEVELS, type LogLevel} from '../shared/log.js'

/**
 * `--log-level`, else PTC_MCP_LOG_LEVEL, else `fallback`: one-shot commands report server
 * problems in their own output, so they default to errors only; `serve` logs warnings.
 */
export function resolveLogLevel(flag: LogLevel | undefined, fallback: LogLevel = 'error'): LogLevel {
  if (flag) return flag
  const fromEnv = process.env.PTC_MCP_LOG_LEVEL
  if (fromEnv === undefined || fromEnv === '') return fallback
  if (isLogLevel(fromEnv)) return fromEnv
  // stderr, never stdout: in `serve` stdout is the protocol.
  process.stderr.write(
    `Warning: PTC_MCP_LOG_LEVEL=${JSON.stringify(fromEnv.slice(0, 40))} is not a log level (${LOG_LEVELS.join(', ')}); using ${fallback}.\n`,
  )
  return fallback
}
