import {
  type ClientCapabilities,
  type InputRequest,
  inputRequired,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server'

import type {
  ApprovalAnswer,
  ApprovalChoice,
  ApprovalPrompter,
  ApprovalRequest,
} from '../permissions/approvals.js'

import {shortJson} from '../permissions/approvals.js'
import {isRecord} from '../shared/guards.js'

/** The first protocol revision without server-to-client requests (answers carry `input_required` instead). */
export const FIRST_MODERN_REVISION = '2026-07-28'

/** Longest wait the SDK accepts for a request (a timer's limit); our own bound is shorter. */
const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647

const CHOICES: readonly ApprovalChoice[] = ['once', 'program', 'session', 'deny']

/**
 * Asks the user of a 2025-era MCP client, through elicitation in form mode during the call (SPEC
 * §12), tied to the execute_program request the program belongs to.
 */
export function elicitationPrompter(server: McpServer, ctx: ServerContext): ApprovalPrompter {
  return {
    unavailable() {
      if (!supportsFormElicitation(server.server.getClientCapabilities()?.elicitation)) {
        return 'this client cannot ask the user (it does not support MCP elicitation)'
      }
    },
    async ask(request, signal) {
      const result = await ctx.mcpReq.elicitInput(approvalForm(request), {
        signal,
        timeout: MAX_REQUEST_TIMEOUT_MS,
      })
      return approvalAnswer(result)
    },
  }
}

/**
 * Asks the user of a 2026-07-28 client, which takes no requests during a call: the question goes
 * out as an input request of the execute_program answer, and the client's next call brings the
 * answer back (SPEC §12).
 */
export function inputRequestPrompter(
  capabilities: ClientCapabilities | undefined,
  ask: (request: InputRequest, signal: AbortSignal) => Promise<unknown>,
): ApprovalPrompter {
  return {
    unavailable() {
      if (!supportsFormElicitation(capabilities?.elicitation)) {
        return 'this client cannot ask the user (it does not support MCP elicitation)'
      }
    },
    async ask(request, signal) {
      return approvalAnswer(await ask(inputRequired.elicit(approvalForm(request)), signal))
    },
  }
}

/** The elicitation that asks for one call (SPEC §12). */
export function approvalForm(request: ApprovalRequest) {
  return {mode: 'form' as const, message: approvalMessage(request), requestedSchema: approvalSchema(request)}
}

/** Accept with a known choice; decline is the user's no; cancel (or anything else) went unanswered. */
function approvalAnswer(result: unknown): ApprovalAnswer {
  if (!isRecord(result)) return 'unanswered'
  if (result.action === 'decline') return 'deny'
  if (result.action !== 'accept') return 'unanswered'
  const decision = isRecord(result.content) ? result.content.decision : undefined
  return CHOICES.find((choice) => choice === decision) ?? 'deny'
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
    `Why you are asked: ${request.why}.`,
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
