import type {ServerConfig} from '../config/schema.js'
import type {ConnectFailure} from '../downstream/connect-failure.js'

import {authCommand} from '../oauth/errors.js'

/** Advice for an HTTP error status, by status. */
function httpFix(status: number | undefined, url: string): string {
  const path = URL.canParse(url) ? new URL(url).pathname : ''
  switch (status) {
    case 401: {
      return 'the server wants credentials: check the Authorization header and its ${TOKEN}'
    }
    case 403: {
      return 'the credentials were refused: check the token and its permissions'
    }
    case 404:
    case 405: {
      return `no MCP endpoint at ${path || 'that path'}: check the url's path (often /mcp for http, /sse for sse)`
    }
    default: {
      return status !== undefined && status >= 500
        ? 'the server failed on its side: check its own logs, or try again later'
        : 'the server refused the request: check the url and the headers'
    }
  }
}

/**
 * The one-line fix for a server that cannot be reached, matched to why it failed (doctor).
 * `failure` is the kind the supervisor recorded; without one (a server that never got that far)
 * the advice is generic.
 */
export function fixForServerFailure(failure: ConnectFailure | null, server: ServerConfig): string {
  const command = server.transport === 'stdio' ? server.command : ''
  switch (failure?.kind) {
    case 'command_not_found': {
      return `"${command}" was not found: use an absolute path, or install it and check PATH`
    }
    case 'not_executable': {
      return `"${command}" cannot be run: check that it is a program and executable (chmod +x)`
    }
    case 'exited': {
      return failure.stderr
        ? `the server crashed at start (${failure.stderr}): fix that, then check by running its command by hand`
        : 'the server exited at start without a word: run its command by hand to see why'
    }
    case 'not_mcp': {
      return `"${command}" does not speak MCP: the command must start an MCP server on stdin/stdout`
    }
    case 'http_status': {
      return httpFix(failure.status, server.transport === 'stdio' ? '' : server.url)
    }
    case 'connection_refused': {
      return 'nothing is listening at that URL: start the server or fix the url'
    }
    case 'unknown_host': {
      return 'the host name does not resolve: check the url'
    }
    case 'timeout': {
      return 'the server did not answer in time: check that it starts on its own and speaks MCP'
    }
    case 'needs_sign_in': {
      return `run \`${authCommand(server.name)}\``
    }
    default: {
      return "run with --log-level debug to see the server's output"
    }
  }
}
