import type {ClientCapabilities} from '@modelcontextprotocol/client'
import type {McpServer} from '@modelcontextprotocol/server'

import type {UpstreamClient} from '../downstream/upstream.js'
import type {Logger} from '../log.js'

import {FIRST_MODERN_REVISION} from './approval-prompter.js'
import {labelElicitation, labelSampling} from './forwarded-requests.js'

export {SERVER_META_KEY} from './forwarded-requests.js'

/**
 * serve's client as the downstream servers' requests reach it (SPEC §12): known once it has
 * initialized; each request labelled with the server's name and escaped (forwarded-requests.ts).
 * A client of the 2026-07-28 revision takes no requests from servers, so nothing is declared for
 * it and the requests are refused as before.
 */
export class UpstreamBridge implements UpstreamClient {
  /** Bound on one forwarded request: the user may take a while (permissions.approval_timeout_seconds). */
  timeoutMs = 300_000
  /** Resolves once the client has initialized (or at once for one that never will: see serve.ts). */
  readonly initialized: Promise<void>
  private server: McpServer | undefined
  private markInitialized!: () => void

  constructor(private readonly logger: Logger) {
    this.initialized = new Promise((resolve) => {
      this.markInitialized = resolve
    })
  }

  /** Called when the client has sent `notifications/initialized`. */
  attach(server: McpServer): void {
    this.server = server
    this.markInitialized()
  }

  capabilities(): ClientCapabilities {
    const server = this.server?.server
    const version = server?.getNegotiatedProtocolVersion()
    if (!server || (version !== undefined && version >= FIRST_MODERN_REVISION)) return {}
    return server.getClientCapabilities() ?? {}
  }

  async elicit(name: string, params: Parameters<UpstreamClient['elicit']>[1], signal: AbortSignal) {
    const server = this.connected()
    this.logger.info(
      `passing an elicitation (${params.mode ?? 'form'} mode) from server '${name}' to the client`,
    )
    let labelled
    try {
      labelled = labelElicitation(name, params)
    } catch (error) {
      this.logger.warn((error as Error).message)
      throw error
    }
    return server.elicitInput(labelled, {signal, timeout: this.timeoutMs})
  }

  async sample(name: string, params: Parameters<UpstreamClient['sample']>[1], signal: AbortSignal) {
    const server = this.connected()
    this.logger.info(`passing a sampling request from server '${name}' to the client`)
    return server.createMessage(labelSampling(name, params), {signal, timeout: this.timeoutMs}) as ReturnType<
      UpstreamClient['sample']
    >
  }

  async elicitationComplete(name: string, elicitationId: string): Promise<void> {
    this.logger.debug(`server '${name}' completed elicitation ${elicitationId}`)
    await this.connected().createElicitationCompletionNotifier(elicitationId)()
  }

  private connected(): McpServer['server'] {
    if (!this.server) throw new Error('the client has not initialized')
    return this.server.server
  }
}
