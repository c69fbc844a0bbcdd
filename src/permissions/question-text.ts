import type {ApprovalQuestion, ApprovalRequest, PlannedRequest} from './approvals.js'

import {terminalSafe} from '../shared/terminal-safe.js'
import {shortJson} from './approvals.js'

/** Calls listed one per line in a question; the rest are counted. */
export const MAX_LISTED_CALLS = 10
/** Arguments of a call in a question about several (each call's line stays short). */
const MAX_LISTED_ARGS_CHARS = 200
/** One sample of a planned call, as the program writes it. */
const MAX_SAMPLE_CHARS = 160

/**
 * What a question says, whoever shows it (an MCP client's form, the terminal): the calls, their
 * arguments, and why the user is asked (SPEC §12). Everything from the program or a server (tool
 * names, arguments, the program's text) is shown, never obeyed: JSON-escaped or made terminal-safe
 * on one line.
 */
export function questionText(question: ApprovalQuestion): string {
  if (question.kind === 'plan') return planText(question.calls)
  const {calls} = question
  if (calls.length === 1) return oneCallText(calls[0]!)
  const lines = [`A program run by ptc-mcp wants to make ${calls.length} calls that need your approval:`]
  for (const [index, call] of calls.slice(0, MAX_LISTED_CALLS).entries()) {
    lines.push(`${index + 1}. ${call.tool.name} ${listedArgs(call.argsText)}`)
  }
  if (calls.length > MAX_LISTED_CALLS) lines.push(`... and ${calls.length - MAX_LISTED_CALLS} more`)
  lines.push(...whyLines(calls))
  return lines.join('\n')
}

/** A call's arguments in a list of several: shorter than alone. */
function listedArgs(argsText: string): string {
  try {
    return shortJson(JSON.parse(argsText), MAX_LISTED_ARGS_CHARS)
  } catch {
    return argsText.length > MAX_LISTED_ARGS_CHARS
      ? `${argsText.slice(0, MAX_LISTED_ARGS_CHARS - 1)}…`
      : argsText
  }
}

/** The question about one call. */
export function oneCallText(request: ApprovalRequest): string {
  const {tool} = request
  return [
    // The tool's own name is the server's to choose: shown as JSON, escaped as the arguments are.
    `A program run by ptc-mcp wants to call ${tool.name} (tool ${shortJson(tool.tool)} of server "${tool.server}").`,
    `Arguments: ${request.argsText}`,
    `Why you are asked: ${request.why}.`,
  ].join('\n')
}

function planText(calls: readonly PlannedRequest[]): string {
  const lines = [
    'A program run by ptc-mcp will make these calls that need your approval (seen before it runs):',
  ]
  for (const call of calls.slice(0, MAX_LISTED_CALLS)) {
    const times =
      call.times === 'many'
        ? 'possibly many times (in a loop or a function)'
        : `${call.times} time${call.times === 1 ? '' : 's'}`
    const sample = call.samples[0]
    lines.push(`- ${call.tool.name} ${times}${sample === undefined ? '' : `, e.g. ${shownSource(sample)}`}`)
  }
  if (calls.length > MAX_LISTED_CALLS) lines.push(`... and ${calls.length - MAX_LISTED_CALLS} more tools`)
  lines.push(...whyLines(calls))
  return lines.join('\n')
}

/** `Why you are asked: …`, once when every call is asked for the same reason. */
function whyLines(calls: ReadonlyArray<{tool: {name: string}; why: string}>): string[] {
  const reasons = new Set(calls.map((call) => call.why))
  if (reasons.size === 1) return [`Why you are asked: ${calls[0]!.why}.`]
  return ['Why you are asked:', ...new Set(calls.map((call) => `- ${call.tool.name}: ${call.why}`))]
}

/** A piece of the program's text on one line, within MAX_SAMPLE_CHARS, control characters shown. */
function shownSource(text: string): string {
  const line = terminalSafe(text.replaceAll(/\s*\n\s*/g, ' ')).replaceAll(/[\u2028\u2029]/g, ' ')
  return line.length > MAX_SAMPLE_CHARS ? `${line.slice(0, MAX_SAMPLE_CHARS - 1)}…` : line
}

/** The tools a question is about, by name, each once. */
export function questionTools(question: ApprovalQuestion): string[] {
  return [...new Set(question.calls.map((call) => call.tool.name))]
}
