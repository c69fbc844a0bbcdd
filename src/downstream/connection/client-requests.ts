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

/**
 * Requests a server makes of its client get an immediate, clear refusal unless they are forwarded
 * (installForwarding): without a handler the SDK would answer a bare "Method not found".
 * `onInitialize` is told when the server sent our own initialize request back: it does not speak MCP.
 */
export function installRefusals(client: Client, onInitialize: () => void): void {
  client.fallbackRequestHandler = async (request) => {
    if (request.method === 'initialize') onInitialize()
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, refusalMessage(request.method))
  }
}

function refusalMessage(method: string): string {
  switch (method) {
    case 'elicitation/create': {
      return 'ptc-mcp does not support elicitation (elicitation/create) here: its own client cannot ask the user (serve passes elicitation on to clients that support it)'
    }
    case 'roots/list': {
      return 'ptc-mcp does not support roots (roots/list)'
    }
    case 'sampling/createMessage': {
      return 'ptc-mcp does not support sampling (sampling/createMessage) here: its own client cannot sample (serve passes sampling on to clients that support it)'
    }
    default: {
      return `ptc-mcp does not support ${method}`
    }
  }
}
