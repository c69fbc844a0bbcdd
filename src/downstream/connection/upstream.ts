import type {
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
} from '@modelcontextprotocol/client'

/**
 * ptc-mcp's own client (the one `serve` answers), as the downstream side sees it: requests a
 * downstream server makes of its client (elicitation, sampling) are passed on to it when it supports
 * them, labelled with the server's name (SPEC §12), and refused as before when it does not.
 */
export interface UpstreamClient {
  /** What the upstream client can answer, as capabilities to declare to downstream servers. */
  capabilities(): ClientCapabilities
  elicit(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>
  sample(
    server: string,
    params: CreateMessageRequest['params'],
    signal: AbortSignal,
  ): Promise<CreateMessageResult>
  /** A URL-mode elicitation finished on the server's side (`notifications/elicitation/complete`). */
  elicitationComplete(server: string, elicitationId: string): Promise<void>
}
