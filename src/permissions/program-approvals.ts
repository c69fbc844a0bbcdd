import type {ToolInfo} from '../downstream/index.js'
import type {Logger} from '../shared/log.js'

import {ToolError} from '../downstream/index.js'
import {timeoutSignal, unlessAborted} from '../shared/abortable.js'
import {formatSeconds} from '../shared/seconds.js'
import {
  type ApprovalAnswer,
  type ApprovalDecision,
  type ApprovalPrompter,
  type ApprovalQuestion,
  type ApprovalRequest,
  howToAllow,
  type PlannedCall,
  type PlannedRequest,
  type ProgramClock,
  shortJson,
  unansweredMessage,
} from './approvals.js'
import {flowDenied, type FlowReason} from './flows.js'
import {describeReason, type PermissionPolicy} from './policy.js'

export interface ProgramApprovalsOptions {
  policy: PermissionPolicy
  /** Undefined: nobody can be asked, every call that needs approval is denied. */
  prompter?: ApprovalPrompter
  clock: ProgramClock
  logger: Logger
  /** Question rounds one program may put to a client. Default: the policy's (permissions.max_question_rounds). */
  maxRounds?: number
}

/**
 * How long a round waits for more calls after the last one came: the calls a program starts
 * together (asyncio.gather) reach the parent a few milliseconds apart (more with large arguments),
 * and share the question. ROUND_GATHER_MAX_MS bounds the wait from the first.
 */
export const ROUND_GATHER_MS = 20
export const ROUND_GATHER_MAX_MS = 250

/** A call waiting for the next round. */
interface Waiting {
  request: ApprovalRequest
  signal: AbortSignal
  /** Whether what the user allowed earlier (for the program, the plan's calls) may let it through unasked. */
  allowances: boolean
  resolve(): void
  reject(error: ToolError): void
}

/** A question the user did not answer: `ends` when nothing more may be asked in this program. */
interface Failure {
  message: string
  ends: boolean
}

const APPROVED_FOR = {
  each: 'once',
  once: 'once',
  program: 'for the rest of the program',
  session: 'for the rest of the session',
} as const

/**
 * The approvals of one program (SPEC §12): few questions, and never one too many. Before the run,
 * `plan` asks once for the calls the preflight check sees; at run time, the calls that need asking
 * while a question is with the user (or within ROUND_GATHER_MS of each other) are asked together in
 * the next round; "for the rest of this program" covers later calls of a tool, "for the rest of this
 * session" those of every later program too (the policy keeps it). The program's clock stops while
 * its calls wait. Rounds are counted: past `maxRounds`, a call that would ask is denied, so the
 * client never ends the call for asking too much and the program ends with its output. Anything but
 * an approval raises ToolError kind `denied` before the call is sent.
 */
export class ProgramApprovals {
  /** Calls of a tool allowed without asking again: how many are left, Infinity for the rest of the program. */
  private readonly allowance = new Map<string, number>()
  /** Tools whose calls the user denied before the run. */
  private readonly deniedTools = new Set<string>()
  private waiting: Waiting[] = []
  /** A question is with the user: calls that need asking meanwhile wait for the next round. */
  private asking = false
  private gathering: NodeJS.Timeout | undefined
  /** When the calls now gathering for the next round began to wait. */
  private gatherSince: number | undefined
  private rounds = 0
  /** Set once nothing more may be asked (unanswered, too many rounds): later calls are denied with it. */
  private closedWith: string | undefined

  constructor(private readonly options: ProgramApprovalsOptions) {}

  /** Question rounds put to the user so far (the plan included). */
  get roundsAsked(): number {
    return this.rounds
  }

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
    const reason = flow ?? this.options.policy.approvalReason(tool)
    if (!reason) return undefined
    const request: ApprovalRequest = {tool, argsText: shortJson(args), why: describeReason(reason), reason}
    if (flow?.action === 'deny') throw this.denied(request, flowDenied(flow))
    if (this.takeAllowance(request)) return 'approved'
    await this.ask(request, signal, true)
    return 'approved'
  }

  /**
   * Puts one call to the user, in the next round with every other call waiting then; resolves once
   * it is allowed, throws ToolError kind `denied` otherwise. The one way a call asks: the permission
   * rules (`check`) and other rules that ask (SPEC §12.1) come here, and share the rounds and their
   * bound. `allowances: false`: what the user allowed for the tool earlier does not let it through.
   */
  async ask(request: ApprovalRequest, signal: AbortSignal, allowances = false): Promise<void> {
    this.refuseAtOnce(request)
    const {clock} = this.options
    clock.pause()
    try {
      await new Promise<void>((resolve, reject) => {
        const entry: Waiting = {request, signal, allowances, resolve, reject}
        const ended = () => {
          this.waiting = this.waiting.filter((other) => other !== entry)
          reject(this.denied(request, 'the program ended while the user was asked'))
        }
        if (signal.aborted) {
          ended()
          return
        }
        signal.addEventListener('abort', ended, {once: true})
        entry.resolve = () => {
          signal.removeEventListener('abort', ended)
          resolve()
        }
        entry.reject = (error) => {
          signal.removeEventListener('abort', ended)
          reject(error)
        }
        this.waiting.push(entry)
        this.gather()
      })
    } finally {
      clock.resume()
    }
  }

  /**
   * The question before the run (SPEC §12): the calls the preflight check sees that will ask, in one
   * question. Calls that need asking wait for its answer; `once` allows the calls it lists (every
   * call of a tool called in a loop), `each` leaves them to be asked one round at a time.
   */
  async plan(planned: readonly PlannedCall[], signal: AbortSignal): Promise<void> {
    const {policy, prompter} = this.options
    const calls: PlannedRequest[] = []
    for (const call of planned) {
      const reason = policy.approvalReason(call.tool)
      if (reason && !this.allowed(call.tool)) calls.push({...call, why: describeReason(reason), reason})
    }
    // One call is asked as well when it is made: a question before the run saves none.
    const one = calls.length === 1 && calls[0]!.times === 1
    if (calls.length === 0 || one || !prompter || prompter.unavailable() !== undefined || this.asking) return
    if (this.roundsLeft() <= 0) return
    this.asking = true
    this.rounds++
    try {
      const answer = await this.put({kind: 'plan', calls}, signal)
      if (typeof answer !== 'string') {
        if (answer.ends) this.closedWith = answer.message
        return
      }
      this.applyPlan(calls, answer)
    } finally {
      this.asking = false
      this.gatherAfterQuestion()
    }
  }

  private applyPlan(calls: PlannedRequest[], answer: ApprovalAnswer): void {
    const {policy, logger} = this.options
    const names = calls.map((call) => call.tool.name).join(', ')
    if (answer === 'unanswered') {
      const first = calls[0]!
      this.closedWith = unansweredMessage(
        first.tool,
        first.reason ?? {source: 'unlisted'},
        policy.readsClaudeCode,
      )
      logger.info(`approval: the question before the run (${names}) went unanswered`)
      return
    }
    for (const {tool, times} of calls) {
      if (answer === 'deny') this.deniedTools.add(tool.name)
      else if (answer === 'session') policy.allowForSession(tool)
      else if (answer === 'program' || (answer === 'once' && times === 'many'))
        this.allowance.set(tool.name, Infinity)
      else if (answer === 'once' && times !== 'many')
        this.allowance.set(tool.name, (this.allowance.get(tool.name) ?? 0) + times)
    }
    logger.info(`approval: before the run, ${names}: ${answer}`)
  }

  /** Denials that need no question: nobody to ask, or nothing more may be asked. */
  private refuseAtOnce(request: ApprovalRequest): void {
    const {policy, prompter} = this.options
    const {tool} = request
    const unavailable = prompter ? prompter.unavailable() : 'there is no way to ask the user'
    if (!prompter || unavailable !== undefined) {
      const fix = howToAllow(tool, request.reason ?? {source: 'unlisted'}, policy.readsClaudeCode)
      throw this.denied(
        request,
        `${tool.name} needs the user's approval (${request.why}), but ${unavailable}; ${fix}`,
      )
    }
    if (this.deniedTools.has(tool.name)) throw this.userDenied(request)
    if (this.closedWith !== undefined) throw this.denied(request, this.closedWith)
  }

  /** A call joined the waiting ones: the next round waits a little longer for more (see ROUND_GATHER_MS). */
  private gather(): void {
    if (this.asking) return
    const now = performance.now()
    this.gatherSince ??= now
    clearTimeout(this.gathering)
    const ms = Math.max(0, Math.min(ROUND_GATHER_MS, this.gatherSince + ROUND_GATHER_MAX_MS - now))
    this.gathering = setTimeout(() => this.roundNow(), ms)
  }

  /** After a question: the calls that came meanwhile are asked next, with any that follow at once. */
  private gatherAfterQuestion(): void {
    if (this.waiting.length === 0) return
    this.gatherSince = undefined
    this.gather()
  }

  private roundNow(): void {
    this.gathering = undefined
    this.gatherSince = undefined
    this.nextRound().catch((error: unknown) => {
      this.options.logger.warn(`an approval round failed: ${(error as Error).message}`)
    })
  }

  /** Asks every call waiting in one question; those allowed or denied meanwhile are settled unasked. */
  private async nextRound(): Promise<void> {
    if (this.asking) return
    const batch: Waiting[] = []
    for (const entry of this.waiting.splice(0)) {
      const {request} = entry
      if (this.deniedTools.has(request.tool.name)) entry.reject(this.userDenied(request))
      else if (entry.allowances && this.takeAllowance(request)) entry.resolve()
      else if (this.closedWith === undefined) batch.push(entry)
      else entry.reject(this.denied(request, this.closedWith))
    }
    if (batch.length === 0) return
    if (this.roundsLeft() <= 0) {
      this.closedWith = this.tooManyQuestions(batch[0]!.request)
      for (const entry of batch) entry.reject(this.denied(entry.request, this.closedWith))
      return
    }
    this.asking = true
    this.rounds++
    try {
      const signal = AbortSignal.any(batch.map((entry) => entry.signal))
      const answer = await this.put({kind: 'calls', calls: batch.map((entry) => entry.request)}, signal)
      this.settle(batch, answer)
    } finally {
      this.asking = false
      this.gatherAfterQuestion()
    }
  }

  private settle(batch: Waiting[], answer: ApprovalAnswer | Failure): void {
    const {policy, logger} = this.options
    if (typeof answer !== 'string') {
      if (answer.ends) this.closedWith = answer.message
      for (const entry of batch) entry.reject(this.denied(entry.request, answer.message))
      return
    }
    if (answer === 'unanswered') {
      const {tool, reason} = batch[0]!.request
      this.closedWith = unansweredMessage(tool, reason ?? {source: 'unlisted'}, policy.readsClaudeCode)
      for (const entry of batch) entry.reject(this.denied(entry.request, this.closedWith))
      return
    }
    for (const entry of batch) {
      const {request} = entry
      if (answer === 'deny') {
        entry.reject(this.userDenied(request))
        continue
      }
      if (answer === 'program') this.allowance.set(allowanceKey(request), Infinity)
      if (answer === 'session') policy.allowForSession({name: allowanceKey(request)})
      logger.info(
        `approval: ${request.tool.name} ${request.argsText} approved ${APPROVED_FOR[answer]} (${request.why})`,
      )
      entry.resolve()
    }
  }

  /** Rounds this program may still ask; Infinity for a prompter no client bounds. */
  private roundsLeft(): number {
    const {prompter, policy, maxRounds = policy.maxQuestionRounds} = this.options
    if (!prompter || prompter.uncapped) return Infinity
    return maxRounds - Math.max(this.rounds, prompter.roundsUsed?.() ?? 0)
  }

  /**
   * One call allowed without asking: for the rest of the program, the plan's, or the session's. A
   * flow's allowance is its own (see allowanceKey): allowing a sink does not allow sending private data to it.
   */
  private takeAllowance(request: Pick<ApprovalRequest, 'reason' | 'tool'>): boolean {
    const name = allowanceKey(request)
    if (this.options.policy.allowedForSession({name})) return true
    const left = this.allowance.get(name) ?? 0
    if (left <= 0) return false
    this.allowance.set(name, left - 1)
    return true
  }

  private allowed(tool: ToolInfo): boolean {
    return this.allowance.get(tool.name) === Infinity || this.options.policy.allowedForSession(tool)
  }

  /** The user's answer to `question`, or why there is none. */
  private async put(question: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalAnswer | Failure> {
    const {approvalTimeoutMs} = this.options.policy
    const timeout = timeoutSignal(approvalTimeoutMs)
    const both = AbortSignal.any([signal, timeout])
    // The prompter is asked to stop when `both` aborts; the race bounds the wait even if it does not.
    try {
      return await unlessAborted(this.options.prompter!.ask(question, both), both)
    } catch (error) {
      if (timeout.aborted) {
        return {
          message: `nobody answered the approval question within ${formatSeconds(approvalTimeoutMs)} (permissions.approval_timeout_seconds), so calls that need approval are denied for the rest of this program`,
          ends: true,
        }
      }
      if (signal.aborted) return {message: 'the program ended while the user was asked', ends: true}
      return {
        message: `the approval question failed: ${error instanceof Error ? error.message : String(error)}`,
        ends: false,
      }
    }
  }

  private tooManyQuestions(request: ApprovalRequest): string {
    const {policy, maxRounds = policy.maxQuestionRounds} = this.options
    const fix = howToAllow(request.tool, request.reason ?? {source: 'unlisted'}, policy.readsClaudeCode)
    return `this program already asked the user ${maxRounds} questions (permissions.max_question_rounds), so this call was not made and later calls that need approval are denied too. Ways to ask fewer: ${fix}; or call ${request.tool.name} by its name where the program's text shows it (one question before the run covers those calls), or start the calls together (asyncio.gather: one question covers the calls waiting)`
  }

  private userDenied(request: ApprovalRequest): ToolError {
    return this.denied(
      request,
      `the user denied this call to ${request.tool.name}; it was not made. Do not retry it`,
    )
  }

  private denied(request: ApprovalRequest, message: string): ToolError {
    this.options.logger.info(`approval: ${request.tool.name} ${request.argsText} denied: ${message}`)
    return new ToolError(`denied: ${message}`, {kind: 'denied'})
  }
}

/** What "allow for the rest of the program/session" keeps: the tool's name, or for a data-flow question `flow:` and the sink's. */
function allowanceKey({reason, tool}: Pick<ApprovalRequest, 'reason' | 'tool'>): string {
  return reason?.source === 'flow' ? `flow:${tool.name}` : tool.name
}
