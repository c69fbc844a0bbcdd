import type {ToolInfo} from '../downstream/types.js'
import type {Logger} from '../shared/log.js'

import {ToolError} from '../downstream/types.js'
import {timeoutSignal, unlessAborted} from '../shared/abortable.js'
import {formatSeconds} from '../shared/seconds.js'
import {shortenJson} from '../shared/shorten-json.js'
import {flowDenied, flowFix, type FlowReason} from './flows.js'
import {type ApprovalReason, describeReason, type PermissionPolicy} from './policy.js'

/** The user's answer: allow this call, allow this tool for the rest of the program or of the session (until serve exits), or deny. */
export type ApprovalChoice = 'once' | 'program' | 'session' | 'deny'

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
}

/** What asks the user: the MCP client by elicitation (serve), the terminal (run), or an automatic answer (--yes). */
export interface ApprovalPrompter {
  /** Why this prompter cannot ask at all ("this client does not support elicitation"); undefined when it can. */
  unavailable(): string | undefined
  /** The user's choice. Aborting `signal` (timeout, end of the program) must end the question. */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>
}

/** The program's clock: stopped while the user decides (SPEC §12). */
export interface ProgramClock {
  pause(): void
  resume(): void
}

export interface ProgramApprovalsOptions {
  policy: PermissionPolicy
  /** Undefined: nobody can be asked, every call that needs approval is denied. */
  prompter?: ApprovalPrompter
  clock: ProgramClock
  logger: Logger
}

export const MAX_SHOWN_ARGS_CHARS = 600

/** What "allow for the rest of the program/session" keeps for a flow: not the sink's own allowance. */
const FLOW_KEY = 'flow:'

const APPROVED_FOR = {
  once: 'once',
  program: 'for the rest of the program',
  session: 'for the rest of the session',
} as const

/**
 * The approvals of one program (SPEC §12): a call that needs the user's approval waits, with the
 * program's clock stopped, while one question at a time is put to the user, bounded by
 * `approval_timeout_seconds`; "allow for the rest of this program" covers later calls of the same
 * tool, "for the rest of this session" those of every later program too (the policy keeps it).
 * Anything but an approval raises ToolError kind `denied` before the call is sent.
 */
export class ProgramApprovals {
  private readonly allowedTools = new Set<string>()
  /** Questions are put one at a time: the next waits for this one. */
  private turn: Promise<unknown> = Promise.resolve()
  /** Set once a question went unanswered: the user is not there, later ones are denied at once. */
  private unanswered: string | undefined

  constructor(private readonly options: ProgramApprovalsOptions) {}

  /**
   * Resolves with `approved` once the user allowed the call, or undefined when it needs no approval;
   * throws ToolError kind `denied` otherwise.
   */
  async check(
    tool: ToolInfo,
    args: Record<string, unknown>,
    signal: AbortSignal,
    /** Set when the data-flow rules decide this call (SPEC §12.1): it asks (or is refused) for that reason. */
    flow?: FlowReason,
  ): Promise<ApprovalDecision | undefined> {
    const {policy} = this.options
    const reason = flow ?? policy.approvalReason(tool)
    if (!reason) return undefined
    const allowKey = flow ? {name: `${FLOW_KEY}${tool.name}`} : tool
    if (this.allowed(allowKey)) return 'approved'

    const request: ApprovalRequest = {tool, argsText: shortJson(args), why: describeReason(reason)}
    if (flow?.action === 'deny') throw this.denied(request, flowDenied(flow))
    const {clock, prompter} = this.options
    const unavailable = prompter ? prompter.unavailable() : 'there is no way to ask the user'
    if (!prompter || unavailable !== undefined) {
      throw this.denied(
        request,
        `${tool.name} needs the user's approval (${request.why}), but ${unavailable}; ${howToAllow(tool, reason, policy.readsClaudeCode)}`,
      )
    }

    clock.pause()
    try {
      const previous = this.turn
      let done!: () => void
      this.turn = new Promise<void>((resolve) => {
        done = resolve
      })
      try {
        await previous
        signal.throwIfAborted()
        if (this.allowed(allowKey)) return 'approved'
        if (this.unanswered) throw this.denied(request, this.unanswered)
        const choice = await this.ask(prompter, request, signal)
        if (choice === 'deny') {
          throw this.denied(
            request,
            `the user denied this call to ${tool.name}; it was not made. Do not retry it`,
          )
        }
        if (choice === 'unanswered') {
          this.unanswered = unansweredMessage(tool, reason, policy.readsClaudeCode)
          throw this.denied(request, this.unanswered)
        }
        if (choice === 'program') this.allowedTools.add(allowKey.name)
        if (choice === 'session') policy.allowForSession(allowKey)
        this.options.logger.info(
          `approval: ${tool.name} ${request.argsText} approved ${APPROVED_FOR[choice]} (${request.why})`,
        )
        return 'approved'
      } finally {
        done()
      }
    } finally {
      clock.resume()
    }
  }

  /** Allowed for this program or session; a flow's allowance is its own (`FLOW_KEY` + the sink's name). */
  private allowed(tool: Pick<ToolInfo, 'name'>): boolean {
    return this.allowedTools.has(tool.name) || this.options.policy.allowedForSession(tool)
  }

  private async ask(
    prompter: ApprovalPrompter,
    request: ApprovalRequest,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer> {
    const {approvalTimeoutMs} = this.options.policy
    const timeout = timeoutSignal(approvalTimeoutMs)
    const both = AbortSignal.any([signal, timeout])
    // The prompter is asked to stop when `both` aborts; the race bounds the wait even if it does not.
    try {
      return await unlessAborted(prompter.ask(request, both), both)
    } catch (error) {
      if (timeout.aborted) {
        this.unanswered = `nobody answered the approval question within ${formatSeconds(approvalTimeoutMs)} (permissions.approval_timeout_seconds), so calls that need approval are denied for the rest of this program`
        throw this.denied(request, this.unanswered)
      }
      if (signal.aborted) throw this.denied(request, 'the program ended while the user was asked')
      throw this.denied(
        request,
        `the approval question failed: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  private denied(request: ApprovalRequest, message: string): ToolError {
    this.options.logger.info(`approval: ${request.tool.name} ${request.argsText} denied: ${message}`)
    return new ToolError(`denied: ${message}`, {kind: 'denied'})
  }
}

/** What the user can change so the tool runs without asking, for the message of a call nobody could approve. */
/**
 * A question the client cancelled: nobody saw it (Claude Code in print mode cancels every question
 * no hook answers), so the call may well be allowed once the user says how (SPEC §12).
 */
function unansweredMessage(tool: ToolInfo, reason: ApprovalReason, readsClaudeCode: boolean): string {
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
