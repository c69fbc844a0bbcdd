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
  ApprovalQuestion,
  ApprovalRequest,
} from '../permissions/approvals.js'

import {oneCallText, questionText, questionTools} from '../permissions/question-text.js'
import {isRecord} from '../shared/guards.js'

/** The first protocol revision without server-to-client requests (answers carry `input_required` instead). */
export const FIRST_MODERN_REVISION = '2026-07-28'

/** Longest wait the SDK accepts for a request (a timer's limit); our own bound is shorter. */
const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647

const CHOICES: readonly ApprovalChoice[] = ['once', 'each', 'program', 'session', 'deny']

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
    async ask(question, signal) {
      const result = await ctx.mcpReq.elicitInput(approvalForm(question), {
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
  roundsUsed?: () => number,
): ApprovalPrompter {
  return {
    ...(roundsUsed && {roundsUsed}),
    unavailable() {
      if (!supportsFormElicitation(capabilities?.elicitation)) {
        return 'this client cannot ask the user (it does not support MCP elicitation)'
      }
    },
    async ask(question, signal) {
      return approvalAnswer(await ask(inputRequired.elicit(approvalForm(question)), signal))
    },
  }
}

/** The elicitation that asks one question, about one call or several (SPEC §12). */
export function approvalForm(question: ApprovalQuestion) {
  return {mode: 'form' as const, message: questionText(question), requestedSchema: approvalSchema(question)}
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

/** The question about one call, as the form's message says it. */
export function approvalMessage(request: ApprovalRequest): string {
  return oneCallText(request)
}

/** The form's one property, `decision`: its choices fit the question. */
function approvalSchema(question: ApprovalQuestion) {
  return {
    type: 'object' as const,
    properties: {
      decision: {type: 'string' as const, ...decisionChoices(question)},
    },
    required: ['decision'],
  }
}

function decisionChoices(question: ApprovalQuestion) {
  const tools = questionTools(question)
  const named = tools.length === 1 ? tools[0]! : `these ${tools.length} tools`
  if (question.kind === 'plan') {
    return {
      title: 'Allow the calls this program will make?',
      oneOf: [
        {const: 'once', title: 'Allow these calls'},
        {const: 'program', title: `Allow ${named} for the rest of this program`},
        {const: 'each', title: 'Ask me at each call'},
        {const: 'session', title: `Allow ${named} for the rest of this session`},
        {const: 'deny', title: 'Deny these calls'},
      ],
    }
  }
  const count = question.calls.length
  return {
    title: count === 1 ? `Allow this call to ${named}?` : `Allow these ${count} calls?`,
    oneOf: [
      {const: 'once', title: count === 1 ? 'Allow once' : `Allow these ${count} calls`},
      {const: 'program', title: `Allow ${named} for the rest of this program`},
      {const: 'session', title: `Allow ${named} for the rest of this session`},
      {const: 'deny', title: count === 1 ? 'Deny' : 'Deny these calls'},
    ],
  }
}
