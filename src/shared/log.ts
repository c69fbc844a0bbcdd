/** Logging goes to stderr only: in `serve`, stdout is the MCP protocol. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export const isLogLevel = (value: string): value is LogLevel =>
  (LOG_LEVELS as readonly string[]).includes(value)

export interface Logger {
  error(message: string): void
  warn(message: string): void
  info(message: string): void
  debug(message: string): void
  child(prefix: string): Logger
}

export function createLogger(
  level: LogLevel = (process.env.PTC_MCP_LOG_LEVEL as LogLevel | undefined) ?? 'warn',
  write: (line: string) => void = (line) => process.stderr.write(line),
  prefix = 'ptc-mcp',
): Logger {
  const threshold = LOG_LEVELS.indexOf(LOG_LEVELS.includes(level) ? level : 'warn')
  const at =
    (lvl: LogLevel) =>
    (message: string): void => {
      if (LOG_LEVELS.indexOf(lvl) <= threshold) write(`[${prefix}] ${lvl}: ${message}\n`)
    }
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child: (name) => createLogger(LOG_LEVELS[threshold], write, `${prefix}:${name}`),
  }
}

/** A logger that drops everything, for tests and library callers that do not want output. */
export const silentLogger: Logger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child: () => silentLogger,
}
