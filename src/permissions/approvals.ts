import type {ToolInfo} from '../downstream/index.js'
import type {ApprovalReason} from './policy.js'

import {shortenJson} from '../shared/shorten-json.js'
import {flowFix} from './flows.js'

/**
 * The user's answer. To a question about calls waiting: allow these calls, allow their tools for
 * the rest of the program or of the session (until serve exits), or deny. To the question before
 * the run (the plan): `once` allows the calls listed, `each` asks again at each call.
 */
export type ApprovalChoice = 'deny' | 'each' | 'once' | 'program' | 'session'

/** What a prompter reports: the user's choice, or that the question went unanswered (the client cancelled it). */
export type ApprovalAnswer = ApprovalChoice | 'unanswered'

/** What the trace records for a call that needed approval. */
export type ApprovalDecision = 'approved' | 'denied'

/** One call waiting for the user, as the prompt shows it. */
export interface ApprovalRequest {
  tool: ToolInfo
  /** The validated arguments as JSON, shortened to `MAX_SHOWN_ARGS_CHARS`. */
  argsText: string
  /** Why it is asked, in one line ("Claude Code's ask rule "mcp__github" (~/.claude/settings.json)"). */
  why: string
  /** The permission rule that asks, when one does: what the denial says to change. */
  reason?: ApprovalReason
}

/** Calls of one tool a program will make, as the preflight check sees them in its text (SPEC §12). */
export interface PlannedCall {
  tool: ToolInfo
  /** How many calls the text shows, or `many` (in a loop or a function: any number). */
  times: number | 'many'
  /** A few of the calls as the program writes them (source text). */
  samples: string[]
}

/** A planned call that needs asking, with why. */
export interface PlannedRequest extends PlannedCall {
  why: string
  reason?: ApprovalReason
}

/** One question: the calls waiting now (one round for all of them), or the plan before the run. */
export type ApprovalQuestion =
  {kind: 'calls'; calls: ApprovalRequest[]} | {kind: 'plan'; calls: PlannedRequest[]}

/** What asks the user: the MCP client by elicitation (serve), the terminal (run), or an automatic answer (--yes). */
export interface ApprovalPrompter {
  /** Why this prompter cannot ask at all ("this client does not support elicitation"); undefined when it can. */
  unavailable(): string | undefined
  /** The user's choice. Aborting `signal` (timeout, end of the program) must end the question. */
  ask(question: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalAnswer>
  /**
   * The rounds this program has put to the client so far, forwarded requests included, when the
   * prompter counts them itself (2026-07-28: input_required answers).
   */
  roundsUsed?(): number
  /** True for a prompter no client bounds (the terminal, --yes): permissions.max_question_rounds does not apply. */
  readonly uncapped?: boolean
}

/** The program's clock: stopped while the user decides (SPEC §12). */
export interface ProgramClock {
  pause(): void
  resume(): void
}

export const MAX_SHOWN_ARGS_CHARS = 600

/**
 * A question the client cancelled: nobody saw it (Claude Code in print mode cancels every question
 * no hook answers), so the call may well be allowed once the user says how (SPEC §12).
 */
export function unansweredMessage(tool: ToolInfo, reason: ApprovalReason, readsClaudeCode: boolean): string {
  return `nobody answered the approval question for ${tool.name} (the client cancelled it, as Claude Code does in print mode for a question no one sees), so the call was not made and later calls that need approval are denied in this program. Ways to allow it: ${howToAllow(tool, reason, readsClaudeCode)}; or answer approval questions with an Elicitation hook in Claude Code's settings`
}

/**
 * The change that lets the call run without asking, in the config in force: Claude Code's settings
 * are named only when ptc-mcp reads them (`permissions.claude_code`).
 */
export function howToAllow(tool: ToolInfo, reason: ApprovalReason, readsClaudeCode: boolean): string {
  switch (reason.source) {
    case 'ask': {
      return `to run it without asking, remove ${JSON.stringify(reason.pattern)} from permissions.ask in ptc-mcp's config`
    }
    case 'claude_code': {
      return `to run it without asking, replace the ask rule ${JSON.stringify(reason.rule)} with an allow rule for ${tool.name} in ${reason.file}`
    }
    case 'flow': {
      return flowFix(reason)
    }
    case 'destructive':
    case 'unlisted': {
      return readsClaudeCode
        ? `to run it without asking, add the allow rule "${tool.name}" to permissions.allow in Claude Code's .claude/settings.json or in ptc-mcp's config`
        : `to run it without asking, add "${tool.name}" to permissions.allow in ptc-mcp's config`
    }
  }
}

/**
 * Characters JSON leaves as they are that a terminal or a client's prompt would obey rather than
 * show: DEL and the C1 controls (`\u009b` starts a sequence on many terminals), line separators,
 * and the bidirectional overrides and isolates, which reorder what the user reads.
 */
const UNSHOWN = /[\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g

/**
 * JSON of the arguments within `MAX_SHOWN_ARGS_CHARS` (the prompt must stay readable): every small
 * argument whole, the large ones cut, so a long first argument cannot hide the others from the user;
 * characters that would not be shown as themselves are `\uXXXX` escapes (the JSON stays the same).
 */
export function shortJson(value: unknown, max = MAX_SHOWN_ARGS_CHARS): string {
  const text = JSON.stringify(shortenJson(value, max)) ?? 'null'
  return text.replaceAll(UNSHOWN, (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`)
}
