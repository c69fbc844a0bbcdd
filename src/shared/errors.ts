/**
 * Errors that are the user's problem (bad config, missing Python, sandbox unavailable) carry a
 * `code`, a one-line `suggestion` and the CLI exit code. Anything else is a bug and gets a stack.
 */
export type PtcErrorCode =
  | 'CONFIG_INVALID'
  | 'CONFIG_NOT_FOUND'
  | 'USAGE'
  | 'SERVER_UNREACHABLE'
  | 'SANDBOX_UNAVAILABLE'
  | 'PYTHON_NOT_FOUND'
  | 'TOOL_NOT_FOUND'
  | 'FILE_EXISTS'
  | 'SOURCE_NOT_FOUND'
  | 'SOURCE_INVALID'

/** Exit codes documented in the README: 0 ok, 1 program or check failed, 2 usage/config, 3 sandbox. */
export const EXIT = {ok: 0, failed: 1, usage: 2, sandbox: 3} as const

export class PtcError extends Error {
  readonly code: PtcErrorCode
  readonly suggestion?: string
  readonly exitCode: number

  constructor(
    code: PtcErrorCode,
    message: string,
    options: {suggestion?: string; exitCode?: number; cause?: unknown} = {},
  ) {
    super(message, {cause: options.cause})
    this.name = new.target.name
    this.code = code
    this.suggestion = options.suggestion
    this.exitCode = options.exitCode ?? EXIT.usage
  }
}

export class ConfigError extends PtcError {
  constructor(message: string, options: {suggestion?: string; cause?: unknown} = {}) {
    super('CONFIG_INVALID', message, {...options, exitCode: EXIT.usage})
  }
}

export class SandboxError extends PtcError {
  constructor(message: string, options: {suggestion?: string; cause?: unknown} = {}) {
    super('SANDBOX_UNAVAILABLE', message, {...options, exitCode: EXIT.sandbox})
  }
}

/** The first errno-style `code` (`ECONNREFUSED`, `ENOTFOUND`) along an error's cause chain. */
export function errnoOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const {code} = current as {code?: unknown}
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code
    current = current instanceof Error ? current.cause : undefined
  }
  return undefined
}
