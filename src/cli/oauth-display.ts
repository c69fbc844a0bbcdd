import chalk from 'chalk'

import type {SignInResult} from '../oauth/sign-in.js'
import type {SignOutResult} from '../oauth/sign-out.js'

import {describeStateLine, type OAuthServerState} from '../oauth/status.js'
import {table} from './display.js'

const STATE_LABEL = {
  'signed-in': chalk.green('signed in'),
  expired: chalk.red('expired'),
  'needs-sign-in': chalk.yellow('needs sign-in'),
} as const

/** `auth --list`: one row per OAuth server, with what to do when something is needed. */
export function formatOAuthStates(states: readonly OAuthServerState[]): string {
  if (states.length === 0)
    return chalk.dim(
      '(no OAuth servers: add "oauth: {}" to an http or sse server, then run "ptc-mcp auth NAME")',
    )
  return table(
    ['SERVER', 'STATE', 'EXPIRES', 'SCOPES', 'FIX'],
    states.map((s) => [
      s.server,
      STATE_LABEL[s.state],
      s.expires ? `${s.expires}${s.refreshable ? ' (refreshes)' : ''}` : '-',
      s.scopes.join(' ') || '-',
      s.fix ?? '',
    ]),
  )
}

/** `list` and `doctor`: one line per OAuth server. */
export function formatOAuthLines(states: readonly OAuthServerState[]): string {
  return states.map((s) => `${s.server}: ${describeStateLine(s)}`).join('\n')
}

export function formatSignIn(result: SignInResult): string {
  // The refresh is promised only when the server issued a refresh token.
  const renewal = result.refreshable
    ? 'is refreshed automatically'
    : `cannot be refreshed (no refresh token was issued): run "ptc-mcp auth ${result.server}" again then`
  const expires = result.expires ? `; the access token expires ${result.expires} and ${renewal}` : ''
  const scopes = result.scopes.length > 0 ? ` (scopes: ${result.scopes.join(' ')})` : ''
  return `Signed in to "${result.server}"${scopes}. Tokens kept in ${result.path}${expires}.\nA running "ptc-mcp serve" uses them without a restart.`
}

export function formatSignOut(result: SignOutResult): string {
  const revoked = {
    revoked: 'tokens revoked at the authorization server',
    unsupported: 'the authorization server offers no revocation',
    failed: `revocation failed (${result.detail ?? 'unknown error'})`,
    nothing: 'no tokens were stored',
  }[result.revocation]
  return `Signed out of "${result.server}": ${revoked}; ${result.deleted ? 'local tokens deleted' : 'nothing to delete'}.`
}
