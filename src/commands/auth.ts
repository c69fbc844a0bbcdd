import {Args, Flags} from '@oclif/core'

import type {Config, RemoteServerConfig} from '../config/schema.js'

import {BaseCommand} from '../cli/base-command.js'
import {formatOAuthStates, formatSignIn, formatSignOut} from '../cli/oauth-display.js'
import {loadConfig} from '../config/load.js'
import {Redactor} from '../downstream/index.js'
import {routeSdkWarnings} from '../oauth/sdk-warnings.js'
import {signIn, type SignInResult} from '../oauth/sign-in.js'
import {signOut, type SignOutResult} from '../oauth/sign-out.js'
import {type OAuthServerState, oauthStates, wantsOAuth} from '../oauth/status.js'
import {TokenStore} from '../oauth/store.js'
import {PtcError} from '../shared/errors.js'
import {createLogger} from '../shared/log.js'

export type AuthResult =
  | {action: 'list'; servers: OAuthServerState[]}
  | (SignOutResult & {action: 'logout'})
  | (SignInResult & {action: 'sign-in'})

export default class Auth extends BaseCommand {
  static override summary = 'Sign in to a server that uses OAuth, list sign-ins, or sign out.'
  static override description = `Opens the server's sign-in page in a browser ($BROWSER when set, else the system's), and always prints its URL; the browser comes back to a loopback address on this machine (oauth.callback_port, or a free port). Tokens are kept in $XDG_STATE_HOME/ptc-mcp/oauth (~/.local/state/ptc-mcp/oauth; directory 0700, files 0600) and refreshed automatically when the server issued a refresh token; a running "ptc-mcp serve" picks them up without a restart.

--list shows each OAuth server's state (signed in, expires, needs sign-in). --logout revokes the tokens where the server supports it, and deletes them.`

  static override enableJsonFlag = true
  static override examples = [
    '<%= config.bin %> auth issues',
    '<%= config.bin %> auth issues --no-browser',
    '<%= config.bin %> auth --list',
    '<%= config.bin %> auth issues --logout',
  ]

  static override args = {
    server: Args.string({description: 'The server to sign in to (its name in the config).'}),
  }

  static override flags = {
    list: Flags.boolean({summary: 'Show the sign-in state of every OAuth server.', exclusive: ['logout']}),
    logout: Flags.boolean({summary: 'Revoke (where supported) and delete the tokens of the server.'}),
    browser: Flags.boolean({
      allowNo: true,
      default: true,
      summary: 'Open the sign-in page in a browser (--no-browser: only print its URL).',
    }),
  }

  async run(): Promise<AuthResult> {
    const {args, flags} = await this.parse(Auth)
    const {config, secrets} = await loadConfig({flag: flags.config})
    // A server's URL can carry a ${VAR} value, and errors and states name it (SPEC §15).
    const redactor = Redactor.fromConfig(config.servers, secrets)
    try {
      // What --json prints too: an OAuth server's state names its URL.
      return redactor.redactValue(await this.act(config.servers, args.server, flags))
    } catch (error) {
      throw redactor.redactError(error)
    }
  }

  private async act(
    servers: Config['servers'],
    name: string | undefined,
    flags: {browser: boolean; list: boolean; logout: boolean},
  ): Promise<AuthResult> {
    const store = new TokenStore()
    if (flags.list) {
      // A server found from its 401 has no record once signed out: ask it, so it is still listed.
      const states = await oauthStates(servers, store, (server) => wantsOAuth(server))
      if (!this.jsonEnabled()) this.log(formatOAuthStates(states))
      return {action: 'list', servers: states}
    }
    const server = remoteServer(servers, name)
    if (flags.logout) {
      const result = await signOut(server, store)
      if (!this.jsonEnabled()) this.log(formatSignOut(result))
      return {action: 'logout', ...result}
    }

    // The SDK's own warnings (a discarded registration) read like every other line of ptc-mcp.
    routeSdkWarnings(createLogger('warn'))
    const cancel = new AbortController()
    const onSigint = (): void => cancel.abort()
    process.once('SIGINT', onSigint)
    try {
      const result = await signIn({
        server,
        store,
        openBrowser: flags.browser,
        signal: cancel.signal,
        onNotice(message) {
          process.stderr.write(`${message}\n`)
        },
        onUrl(url, problem) {
          // Always, and on stderr: with --json, stdout carries only the result (and oclif's
          // logToStderr is silent then).
          const lines = [`Open this URL to sign in to "${server.name}":`, `  ${url}`]
          if (problem) lines.push(`(${problem}; open the URL yourself)`)
          process.stderr.write(`${[...lines, 'Waiting for the browser...'].join('\n')}\n`)
        },
      })
      if (!this.jsonEnabled()) this.log(formatSignIn(result))
      return {action: 'sign-in', ...result}
    } finally {
      process.off('SIGINT', onSigint)
    }
  }
}

function remoteServer(
  servers: readonly {name: string; transport: string}[],
  name: string | undefined,
): RemoteServerConfig {
  const remote = servers.filter((s) => s.transport !== 'stdio') as RemoteServerConfig[]
  const names = remote.map((s) => s.name).join(', ') || 'none'
  if (name === undefined) {
    throw new PtcError('USAGE', 'Name the server to sign in to, or pass --list.', {
      suggestion: `Servers that can sign in (http and sse): ${names}.`,
    })
  }
  const server = remote.find((s) => s.name === name)
  if (server) return server
  const stdio = servers.some((s) => s.name === name)
  throw new PtcError(
    'USAGE',
    stdio
      ? `Server "${name}" is a stdio server: only http and sse servers sign in with OAuth.`
      : `No server named "${name}" in the config.`,
    {suggestion: `Servers that can sign in (http and sse): ${names}.`},
  )
}
