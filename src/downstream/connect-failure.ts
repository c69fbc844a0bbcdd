/**
 * Why a connection attempt failed, as a kind the CLI can act on (doctor's advice) beside the
 * message the model and the log read. Classified once, where the error object still exists.
 */
export type ConnectFailureKind =
  /** The stdio command does not exist. */
  | 'command_not_found'
  /** The stdio command exists but cannot be run. */
  | 'not_executable'
  /** The stdio server exited before answering (a crash at start). */
  | 'exited'
  /** Something answered that does not speak MCP (e.g. `/bin/cat`, which echoes our request back). */
  | 'not_mcp'
  /** The HTTP server answered with an error status (see `status`). */
  | 'http_status'
  /** Nothing listens at the URL's host and port. */
  | 'connection_refused'
  /** The URL's host name does not resolve. */
  | 'unknown_host'
  /** No answer within the connect timeout. */
  | 'timeout'
  /** An OAuth server without usable tokens: `ptc-mcp auth NAME` (SPEC §13). */
  | 'needs_sign_in'
  | 'other'

export interface ConnectFailure {
  kind: ConnectFailureKind
  /** HTTP status, for `http_status`. */
  status?: number
  /** The stderr line that says why (stdio), when there is one. */
  stderr?: string
}

/** The first numeric `status` along an error's cause chain (the SDK's HTTP errors carry one). */
export function httpStatusOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const {status} = current as {status?: unknown}
    if (typeof status === 'number' && status >= 100 && status <= 599) return status
    current = current instanceof Error ? current.cause : undefined
  }
  return undefined
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

/** The kind of a remote failure, from the error object. */
export function remoteFailureKind(error: unknown): Pick<ConnectFailure, 'kind' | 'status'> {
  const status = httpStatusOf(error)
  if (status !== undefined) return {kind: 'http_status', status}
  const code = errnoOf(error)
  if (code === 'ECONNREFUSED') return {kind: 'connection_refused'}
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return {kind: 'unknown_host'}
  return {kind: 'other'}
}
