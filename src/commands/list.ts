import {Flags} from '@oclif/core'
import {existsSync} from 'node:fs'

import type {ServerStatus, ToolInfo} from '../downstream/index.js'

import {BaseCommand} from '../cli/base-command.js'
import {formatHiddenTools, formatServerStatus, formatToolTable} from '../cli/display.js'
import {EXAMPLE_CONFIG} from '../cli/help-examples.js'
import {formatOAuthLines} from '../cli/oauth-display.js'
import {openConnectedRuntime} from '../cli/open-runtime.js'
import {type OAuthServerState, oauthStates} from '../oauth/status.js'
import {TokenStore} from '../oauth/store.js'
import {rejectedLine} from '../permissions/claude-settings.js'
import {PtcError} from '../shared/errors.js'

export interface ListResult {
  config: string | null
  searched: string[]
  /** `needs_approval` says why calls to a tool ask the user first (SPEC §12). */
  tools: Array<ToolInfo & {needs_approval?: string}>
  /** Tools of connected servers that tools.allow / tools.block hides, and why. */
  hidden: {name: string; server: string; reason: string}[]
  /** allow/block patterns that match no tool of the connected servers (likely misspelt), as warnings. */
  unmatchedRules: string[]
  /** Claude Code rules for MCP tools that Claude Code itself skips (so ptc-mcp does too), with file and reason. */
  rejectedRules: string[]
  servers: ServerStatus[]
  /** Sign-in state of each OAuth server (SPEC §13). */
  oauth: OAuthServerState[]
}

export default class List extends BaseCommand {
  static override summary = 'List the tools programs can call, and the state of each server.'
  static override enableJsonFlag = true
  static override examples = [
    '<%= config.bin %> list',
    `<%= config.bin %> list --config ${EXAMPLE_CONFIG} --server finance --json`,
  ]
  static override flags = {
    server: Flags.string({summary: 'Only this server (its config name).'}),
  }

  async run(): Promise<ListResult> {
    const {flags} = await this.parse(List)
    const runtime = await openConnectedRuntime(flags.config, this.logLevel(flags))
    try {
      const servers = runtime.registry.serverStatus()
      if (flags.server !== undefined && !servers.some((s) => s.name === flags.server)) {
        const known = servers.map((s) => s.name).join(', ') || 'none'
        throw new PtcError('USAGE', `No server named "${flags.server}" in the config (servers: ${known}).`, {
          suggestion: 'Pass one of the names under "servers:" in config.yaml.',
        })
      }
      const wanted = (server: string) => flags.server === undefined || server === flags.server
      const result: ListResult = {
        config: runtime.configPath,
        searched: runtime.searched,
        tools: runtime.registry
          .listTools()
          .filter((t) => wanted(t.server))
          .map((t) => {
            const note = runtime.registry.approvalNote(t)
            return note === undefined ? t : {...t, needs_approval: note}
          }),
        hidden: runtime.registry
          .hiddenTools()
          .filter(({tool}) => wanted(tool.server))
          .map(({tool, reason}) => ({name: tool.name, server: tool.server, reason})),
        unmatchedRules: runtime.registry.unmatchedRules().map((rule) => rule.message),
        rejectedRules: runtime.permissions.rejectedRules().map((rule) => rejectedLine(rule)),
        servers: servers.filter((s) => wanted(s.name)),
        // Each names its server's URL, which can carry a ${VAR} value.
        oauth: runtime.registry.redactor.redactValue(
          (
            await oauthStates(
              runtime.config.servers,
              new TokenStore(),
              (server) => runtime.registry.connectFailure(server.name)?.kind === 'needs_sign_in',
            )
          ).filter((s) => wanted(s.server)),
        ),
      }
      if (!this.jsonEnabled()) this.display(result)
      return result
    } finally {
      await runtime.close()
    }
  }

  private display(result: ListResult): void {
    if (result.config === null) {
      // A file that exists and was not taken is a ./config.yaml of another application.
      const passedOver = result.searched.filter((path) => existsSync(path))
      const why = passedOver.length > 0 ? `; ${passedOver.join(', ')} is not a ptc-mcp config` : ''
      this.logToStderr(
        `No config found (looked in: ${result.searched.join(', ')}${why}). Run "ptc-mcp init" to create one.`,
      )
    }
    for (const warning of [...result.unmatchedRules, ...result.rejectedRules])
      this.logToStderr(`Warning: ${warning}`)
    this.log(formatToolTable(result.tools))
    if (result.hidden.length > 0) this.log(`\n${formatHiddenTools(result.hidden)}`)
    this.log('')
    this.log(formatServerStatus(result.servers))
    if (result.oauth.length > 0) this.log(`\nSign-in:\n${formatOAuthLines(result.oauth)}`)
  }
}
