import type {McpServer, ServerContext} from '@modelcontextprotocol/server'

import type {ApprovalChoice, ApprovalPrompter, ApprovalRequest} from '../permissions/approvals.js'

import {shortJson} from '../permissions/approvals.js'

/** The first protocol revision without server-to-client requests (answers carry `input_required` instead). */
export const FIRST_MODERN_REVISION = '2026-07-28'

/** Longest wait the SDK accepts for a request (a timer's limit); our own bound is shorter. */
const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647

const CHOICES: readonly ApprovalChoice[] = ['once', 'program', 'session', 'deny']

/**
 * Asks the user of the MCP client, through elicitation in form mode (SPEC §12), tied to the
 * execute_program request the program belongs to.
 */
export function elicitationPrompter(server: McpServer, ctx: ServerContext): ApprovalPrompter {
  return {
    unavailable() {
      const version = server.server.getNegotiatedProtocolVersion()
      if (version !== undefined && version >= FIRST_MODERN_REVISION) {
        return `the client speaks protocol revision ${version}, where ptc-mcp cannot ask the user in the middle of a program`
      }
      if (!supportsFormElicitation(server.server.getClientCapabilities()?.elicitation)) {
        return 'this client cannot ask the user (it does not support MCP elicitation)'
      }
    },
    async ask(request, signal) {
      const result = await ctx.mcpReq.elicitInput(
        {mode: 'form', message: approvalMessage(request), requestedSchema: approvalSchema(request)},
        {signal, timeout: MAX_REQUEST_TIMEOUT_MS},
      )
      if (result.action !== 'accept') return 'deny'
      const decision = result.content?.decision
      return CHOICES.find((choice) => choice === decision) ?? 'deny'
    },
  }
}

/** `elicitation: {}` (the form-only capability of 2025-06-18) or one that lists `form`. */
export function supportsFormElicitation(capability: unknown): boolean {
  if (typeof capability !== 'object' || capability === null) return false
  const modes = capability as {form?: unknown; url?: unknown}
  return modes.form !== undefined || modes.url === undefined
}

export function approvalMessage(request: ApprovalRequest): string {
  const {tool} = request
  return [
    // The tool's own name is the server's to choose: shown as JSON, escaped as the arguments are.
    `A program run by ptc-mcp wants to call ${tool.name} (tool ${shortJson(tool.tool)} of server "${tool.server}").`,
    `Arguments: ${request.argsText}`,
    `You are asked because of ${request.why}.`,
  ].join('\n')
}

function approvalSchema(request: ApprovalRequest) {
  return {
    type: 'object' as const,
    properties: {
      decision: {
        type: 'string' as const,
        title: `Allow this call to ${request.tool.name}?`,
        oneOf: [
          {const: 'once', title: 'Allow once'},
          {const: 'program', title: `Allow ${request.tool.name} for the rest of this program`},
          {const: 'session', title: `Allow ${request.tool.name} for the rest of this session`},
          {const: 'deny', title: 'Deny'},
        ],
      },
    },
    required: ['decision'],
  }
}
