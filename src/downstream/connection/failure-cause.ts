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
  /** The URL answered, but not as an MCP endpoint (a web page, no such path, no POST). */
  | 'not_mcp_endpoint'
  /** An `sse` server's URL answered its GET with something other than an event stream. */
  | 'not_sse_stream'
  /** The server answered 401 or 403 (without OAuth in play). */
  | 'needs_credentials'
  /** The server (or a proxy in front of it) answered 5xx: its side failed. */
  | 'server_error'
  /** The HTTP server answered with another error status (see `status`). */
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

/** What a transport makes of a failed attempt: the kind, and the reason in words. */
export interface FailureCause {
  kind: ConnectFailureKind
  message: string
  /** HTTP status, for `http_status`. */
  status?: number
}

export interface ConnectFailure extends FailureCause {
  /** The one-line fix, matched to the kind (doctor). */
  fix: string
  /** The stderr line that says why (stdio), when there is one; `message` quotes it too. */
  stderr?: string
}
