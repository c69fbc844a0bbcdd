import type {ClientCapabilities, CreateMessageResult, ElicitResult} from '@modelcontextprotocol/client'

import {
  type InputRequest,
  inputRequired,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server'

import type {UpstreamClient} from '../downstream/index.js'
import type {Logger} from '../shared/log.js'
import type {ProgramRounds} from './program-rounds.js'

import {timeoutSignal} from '../shared/abortable.js'
import {isRecord} from '../shared/guards.js'
import {labelElicitation, labelSampling} from './forwarded-requests.js'

export {SERVER_META_KEY} from './forwarded-requests.js'

/**
 * serve's client as the downstream servers' requests reach it (SPEC §12): known once it has
 * initialized (2025 era) or sent its first request (2026-07-28, whose requests carry the client's
 * capabilities); each request labelled with the server's name and escaped (forwarded-requests.ts). A 2026-07-28 client takes no requests from servers: a
 * forwarded request goes out as an input request of the running program's answer instead.
 */
export class UpstreamBridge implements UpstreamClient {
  /** Bound on one forwarded request: the user may take a while (permissions.approval_timeout_seconds). */
  timeoutMs = 300_000
  /** Resolves once the client has initialized (or at once for one that never will: see serve.ts). */
  readonly initialized: Promise<void>
  /** The programs that carry forwarded requests to a 2026-07-28 client. */
  rounds: ProgramRounds | undefined
  private server: McpServer | undefined
  /** Set for a 2026-07-28 client: the capabilities its first request declared. */
  private modernCapabilities: ClientCapabilities | undefined
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

  /** Called on the first request of a 2026-07-28 client, with the capabilities it declares. */
  attachModern(capabilities: unknown): void {
    this.modernCapabilities = isRecord(capabilities) ? (capabilities as ClientCapabilities) : {}
    this.markInitialized()
  }

  capabilities(): ClientCapabilities {
    if (this.modernCapabilities) return this.modernCapabilities
    return this.server?.server.getClientCapabilities() ?? {}
  }

  async elicit(name: string, params: Parameters<UpstreamClient['elicit']>[1], signal: AbortSignal) {
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
    if (this.modernCapabilities) {
      const request =
        labelled.mode === 'url'
          ? inputRequired.elicitUrl({message: labelled.message, url: labelled.url})
          : inputRequired.elicit({message: labelled.message, requestedSchema: labelled.requestedSchema})
      const response = await this.throughProgram(name, request, signal)
      return (
        isRecord(response) && typeof response.action === 'string' ? response : {action: 'cancel'}
      ) as ElicitResult
    }
    return this.connected().elicitInput(labelled, {signal, timeout: this.timeoutMs})
  }

  async sample(name: string, params: Parameters<UpstreamClient['sample']>[1], signal: AbortSignal) {
    this.logger.info(`passing a sampling request from server '${name}' to the client`)
    const labelled = labelSampling(name, params)
    if (this.modernCapabilities) {
      const response = await this.throughProgram(name, inputRequired.createMessage(labelled), signal)
      if (!isRecord(response) || typeof response.role !== 'string' || !isRecord(response.content))
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          'the client did not answer the sampling request',
        )
      return response as CreateMessageResult
    }
    return this.connected().createMessage(labelled, {signal, timeout: this.timeoutMs}) as ReturnType<
      UpstreamClient['sample']
    >
  }

  async elicitationComplete(name: string, elicitationId: string): Promise<void> {
    this.logger.debug(`server '${name}' completed elicitation ${elicitationId}`)
    await this.connected().createElicitationCompletionNotifier(elicitationId)()
  }

  /**
   * A 2026-07-28 client hears of a server's request only in the answer of a call in progress: the
   * program most recently started or resumed carries it (the answer goes back to the server
   * whichever program carried it).
   */
  private async throughProgram(name: string, request: InputRequest, signal: AbortSignal): Promise<unknown> {
    const run = this.rounds?.latest()
    if (!run) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        'no program is running through which ptc-mcp could put this request to its client',
      )
    }
    this.logger.info(
      `passing a ${request.method} request from server '${name}' to the client with a program's answer`,
    )
    return run.ask(request, AbortSignal.any([signal, run.signal, timeoutSignal(this.timeoutMs)]))
  }

  private connected(): McpServer['server'] {
    if (!this.server) throw new Error('the client has not initialized')
    return this.server.server
  }
}
