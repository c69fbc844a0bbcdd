import {
  type Client,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/client'

import type {UpstreamClient} from './upstream.js'

/**
 * The capabilities ptc-mcp declares to a downstream server: the elicitation modes and sampling its
 * own client supports (SPEC §12), nothing otherwise (`ptc-mcp run`, or a client without them).
 */
export function forwardedCapabilities(upstream: UpstreamClient | undefined): ClientCapabilities {
  const upstreamCapabilities = upstream?.capabilities() ?? {}
  const capabilities: ClientCapabilities = {}
  const {elicitation, sampling} = upstreamCapabilities
  if (elicitation) {
    capabilities.elicitation = {
      ...(supportsForm(elicitation) && {form: {}}),
      ...(elicitation.url !== undefined && {url: {}}),
    }
  }
  if (sampling) capabilities.sampling = {}
  return capabilities
}

/** Passes elicitation and sampling requests of server `name` on to the upstream client, as declared. */
export function installForwarding(
  client: Client,
  name: string,
  upstream: UpstreamClient | undefined,
  declared: ClientCapabilities,
): void {
  if (!upstream) return
  const {elicitation} = declared
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const mode = request.params.mode ?? 'form'
      if (!(mode in elicitation)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `ptc-mcp's client does not support elicitation in ${mode} mode`,
        )
      }
      return upstream.elicit(name, request.params, ctx.mcpReq.signal)
    })
    if (elicitation.url) {
      client.setNotificationHandler('notifications/elicitation/complete', async (notification) => {
        await upstream.elicitationComplete(name, notification.params.elicitationId)
      })
    }
  }
  if (declared.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) =>
      upstream.sample(name, request.params, ctx.mcpReq.signal),
    )
  }
}

/** `elicitation: {}` (form only, before modes existed) or one that lists `form`. */
export function supportsForm(capability: NonNullable<ClientCapabilities['elicitation']>): boolean {
  return capability.form !== undefined || capability.url === undefined
}
