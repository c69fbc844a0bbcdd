import type {ServerConfig} from '../../config/schema.js'
import type {ConnectFailure, ConnectFailureKind, FailureCause} from './failure-cause.js'

import {authCommand, signInMessage} from '../../oauth/errors.js'
import {DEFAULT_CONNECT_TIMEOUT_SECONDS} from '../../shared/limits.js'
import {describeError, withStderr} from './error-text.js'
import {remoteFix} from './remote-failure.js'

/** What is known about a failed attempt besides the error: what every transport checks first. */
export interface AttemptFacts {
  /** The server sent our own initialize request back. */
  echoedInitialize: boolean
  /** The connect timeout's signal: aborted means the attempt ran out of time. */
  deadline: AbortSignal
  /** The stderr line that best says why, when the server wrote one. */
  stderr: string | undefined
  /** The attempt carried a stored OAuth access token. */
  sentToken?: boolean
}

/**
 * The failure of an attempt: not MCP, a timeout and a needed sign-in are the same on every
 * transport; anything else is the transport's to classify (`transportCause`).
 */
export function connectFailure(
  error: unknown,
  server: ServerConfig,
  facts: AttemptFacts,
  transportCause: (error: unknown) => FailureCause,
): ConnectFailure {
  if (facts.echoedInitialize) {
    const message = 'not an MCP server: it sent the initialize request back instead of answering it'
    return failure({kind: 'not_mcp', message}, server, facts.stderr)
  }
  if (facts.deadline.aborted)
    return failure({kind: 'timeout', message: describeError(facts.deadline.reason)}, server, facts.stderr)
  const signIn = signInMessage(error)
  if (signIn !== undefined) return failure({kind: 'needs_sign_in', message: signIn}, server)
  const cause = transportCause(error)
  // Some servers answer a token they no longer know (after a restart) with 500, not 401.
  if (facts.sentToken && cause.kind === 'server_error') {
    const hint = `sign-in may have expired: run \`${authCommand(server.name)}\``
    const found = failure({...cause, message: `${cause.message}; ${hint}`}, server, facts.stderr)
    return {...found, fix: `${hint} (or the server failed on its side: check its logs)`}
  }
  return failure(cause, server, facts.stderr)
}

/** The failure of `cause`, with its fix and the stderr line (quoted in the message too). */
export function failure(cause: FailureCause, server: ServerConfig, stderr?: string): ConnectFailure {
  const withLine = {
    ...cause,
    message: withStderr(cause.message, stderr),
    ...(stderr === undefined ? {} : {stderr}),
  }
  return {...withLine, fix: FIXES[cause.kind](withLine, server)}
}

/** The failure with the config's secrets taken out of everything it says (a stderr line may quote them). */
export function redactFailure(failure: ConnectFailure, redact: (text: string) => string): ConnectFailure {
  const {message, fix, stderr} = failure
  return {
    ...failure,
    message: redact(message),
    fix: redact(fix),
    ...(stderr === undefined ? {} : {stderr: redact(stderr)}),
  }
}

/** The fix for each kind; `command` and `url` are the server's own. */
const FIXES: Record<
  ConnectFailureKind,
  (failure: FailureCause & {stderr?: string}, server: ServerConfig) => string
> = {
  command_not_found: (_, server) =>
    `"${commandOf(server)}" was not found: use an absolute path, or install it and check PATH`,
  not_executable: (_, server) =>
    `"${commandOf(server)}" cannot be run: check that it is a program and executable (chmod +x)`,
  exited: ({stderr}) =>
    stderr
      ? `the server crashed at start (${stderr}): fix that, then check by running its command by hand`
      : 'the server exited at start without a word: run its command by hand to see why',
  not_mcp: (_, server) =>
    `"${commandOf(server)}" does not speak MCP: the command must start an MCP server on stdin/stdout`,
  not_mcp_endpoint: remote,
  not_sse_stream: remote,
  needs_credentials: remote,
  server_error: remote,
  http_status: remote,
  connection_refused: () => 'nothing is listening at that URL: start the server or fix the url',
  unknown_host: () => 'the host name does not resolve: check the url',
  timeout: (_, server) =>
    `the server did not answer in time: a first start can be slow (npx downloading a package), so raise connect_timeout_seconds (the server's own, or the top-level default; now ${server.connect_timeout_seconds ?? DEFAULT_CONNECT_TIMEOUT_SECONDS} s), or check that it starts on its own and speaks MCP`,
  needs_sign_in: (_, server) => `run \`${authCommand(server.name)}\``,
  other: () => GENERIC_FIX,
}

/** The fix when nothing more is known. */
export const GENERIC_FIX = "run with --log-level debug to see the server's output"

function commandOf(server: ServerConfig): string {
  return server.transport === 'stdio' ? server.command : ''
}

/** The fix for a remote server's kinds (remote-failure.ts decides them). */
function remote(cause: FailureCause, server: ServerConfig): string {
  return server.transport === 'stdio' ? GENERIC_FIX : remoteFix(cause, server)
}
