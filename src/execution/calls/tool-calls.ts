import type {ApprovalDecision, PlannedCall} from '../../permissions/approvals.js'
import type {ChildRequestHandlers} from '../child/index.js'
import type {ToolCallTrace} from '../outcome/trace.js'
import type {HelperName, PlanEntry, ResultMessage} from '../protocol/protocol.js'

import {ToolError, type ToolErrorKind, type ToolHost, type ToolInfo} from '../../downstream/index.js'
import {MAX_HELPER_CALLS, STATE_DEFAULTS} from '../../shared/limits.js'
import {traceArgs, traceError, traceTool} from '../outcome/trace.js'
import {KeptState} from '../state/kept-state.js'
import {ProgramState} from '../state/program-state.js'
import {budgetError} from './call-budget.js'
import {HELPER_LIST, type HelperContext, PROGRAM_HELPERS, type ProgramLookup} from './program-helpers.js'

export interface ToolCallLimits {
  /** Counted calls per program (execution.max_tool_calls). */
  maxCalls: number
  /** Calls in flight at once (execution.max_concurrent_calls); the rest wait in order. */
  maxConcurrent: number
  /** Per-call limit passed to the host (execution.tool_call_timeout_seconds). */
  callTimeoutMs: number
  /** Largest result passed to the program (execution.max_tool_result_bytes). */
  maxResultBytes: number
  /**
   * Bytes of call messages allowed to wait for a concurrency slot; over it, `holdRequests` is asked
   * to stop reading the child's requests until the queue shrinks.
   */
  maxQueuedBytes: number
}

const DEFAULT_STATE = {...STATE_DEFAULTS}

/**
 * Decides whether one call may run (SPEC §12): resolves `approved` once the user allowed it,
 * undefined when nothing needed asking; throws ToolError kind `denied` otherwise.
 */
export type CallApprover = (
  tool: ToolInfo,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<ApprovalDecision | undefined>

/** Puts the calls a program will make to the user before it runs (SPEC §12); never throws. */
export type CallPlanner = (planned: PlannedCall[], signal: AbortSignal) => void

/** Called after every finished tool call with the number finished so far, and that call. */
export type ToolCallListener = (finished: number, call: ToolCallTrace) => void

export interface BrokerHooks {
  /** Called after every finished tool call (progress notifications). */
  onCallDone?: ToolCallListener
  /** A call waits for its server, still starting, at most `waitMs` (progress notifications). */
  onServerWait?: (server: string, waitMs: number) => void
  /** Asks before a call runs (SPEC §12). */
  approver?: CallApprover
  /** Asks once, before the run, for the calls the program's text shows (SPEC §12). */
  planner?: CallPlanner
  /** Stops (true) or resumes reading the child's requests: `ProgramChild.holdRequests`. */
  holdRequests?: (hold: boolean) => void
  /** The program's view of the kept state (SPEC §6.2). Default: a kept state of its own, with the default bounds. */
  state?: ProgramState
  /** The saved programs run_program() runs (SPEC §17). Default: none. */
  programs?: ProgramLookup
}

interface PendingCall {
  id: number
  tool: string
  args: Record<string, unknown>
  bytes: number
}

interface RunningCall extends PendingCall {
  startedAt: number
  /** The program stopped waiting (e.g. asyncio.wait_for): the result is dropped. */
  cancelled: boolean
  approval?: ApprovalDecision
}

/** The error of a call still running when its program ended (Ctrl-C in `run` names what it waited for). */
export const ENDED_BEFORE_FINISH = 'the program ended before the call finished'
const CANCELLED_BY_PROGRAM = 'cancelled: the program stopped waiting for it'

/**
 * Carries out one program's tool calls: the budget, the concurrency limit and the per-call
 * timeout are enforced here, in the parent, whatever the child claims (SPEC §6, §7). Helpers are
 * answered at once and not counted.
 */
export class ToolCallBroker implements ChildRequestHandlers {
  /** Every call that reached the host, in the order they finished. */
  readonly calls: ToolCallTrace[] = []
  /** Bytes of the results that reached the program (SPEC §8: what it kept out of the context). */
  resultBytes = 0
  /** Calls handed to the host (the budget counts these); calls refused for the budget. */
  private sent = 0
  private refused = 0
  private helpers = 0
  private queuedBytes = 0
  private holding = false
  private readonly running = new Map<number, RunningCall>()
  /** Calls waiting for a slot from `queueHead` on; started ones are let go (their arguments are large). */
  private readonly queue: (PendingCall | undefined)[] = []
  private queueHead = 0
  private closed = false
  /** One signal for all calls of the run (an AbortController per call costs more than the rest). */
  private readonly runController = new AbortController()
  /** What the helpers answer from. */
  private readonly helperContext: HelperContext
  /** The program's view of the kept state: what it stores, and its data-flow mark. */
  private readonly state: ProgramState

  constructor(
    private readonly host: ToolHost,
    private readonly reply: (message: ResultMessage) => void,
    private readonly limits: ToolCallLimits,
    private readonly hooks: BrokerHooks = {},
  ) {
    this.state = hooks.state ?? new ProgramState(new KeptState(DEFAULT_STATE))
    this.helperContext = {
      host,
      state: this.state,
      ...(hooks.programs && {programs: hooks.programs}),
    }
  }

  onCall(id: number, tool: string, args: Record<string, unknown>, bytes = 0): void {
    if (this.closed) return
    if (this.sent >= this.limits.maxCalls) {
      this.refuse(id, tool)
      return
    }
    const call = {id, tool, args, bytes}
    if (this.running.size < this.limits.maxConcurrent) this.begin(call)
    else {
      this.queue.push(call)
      this.queuedBytes += bytes
      this.updateHold()
    }
  }

  /**
   * A call over the budget, never sent. Rule: the budget counts calls sent, not calls made and
   * still waiting for a slot (SPEC §6), so the error's count is what reached the servers.
   */
  private refuse(id: number, tool: string): void {
    this.refused++
    this.reply(this.refusal(id, tool))
  }

  private refusal(id: number, tool: string): ResultMessage {
    const error = budgetError(this.host, tool, {
      sent: this.sent,
      refused: this.refused,
      max: this.limits.maxCalls,
    })
    return {type: 'result', id, ok: false, kind: 'budget', error}
  }

  /** The budget is spent: `next` and every call still queued are refused, each error counting them all. */
  private refuseQueued(next: PendingCall): void {
    const waiting = [next, ...this.queue.slice(this.queueHead).filter((call) => call !== undefined)]
    this.queue.length = 0
    this.queueHead = 0
    this.queuedBytes = 0
    this.refused += waiting.length
    for (const call of waiting) this.reply(this.refusal(call.id, call.tool))
  }

  /** Parsed arguments waiting in the queue cost memory: past the bound, the child waits instead. */
  private updateHold(): void {
    const hold = !this.closed && this.queuedBytes > this.limits.maxQueuedBytes
    if (hold === this.holding) return
    this.holding = hold
    this.hooks.holdRequests?.(hold)
  }

  onCancel(id: number): void {
    const running = this.running.get(id)
    if (running) {
      // It keeps its concurrency slot until the server answers or the per-call timeout ends it.
      running.cancelled = true
      return
    }
    // Not started yet: it never reaches the server.
    const index = this.queue.findIndex((call) => call?.id === id)
    if (index !== -1) {
      this.queuedBytes -= this.queue[index]!.bytes
      this.queue.splice(index, 1)
      this.updateHold()
    }
  }

  /** The calls the program's text shows, before it runs: those of tools known here. */
  onPlan(calls: PlanEntry[]): void {
    const {planner} = this.hooks
    if (!planner || this.closed) return
    const planned: PlannedCall[] = []
    for (const call of calls) {
      const tool = this.host.getTool(call.tool)
      if (!tool) continue
      planned.push({tool, times: call.times, samples: call.samples})
    }
    if (planned.length > 0) planner(planned, this.runController.signal)
  }

  onHelper(id: number, name: HelperName, args: Record<string, unknown>): void {
    if (this.closed) return
    if (++this.helpers > MAX_HELPER_CALLS) {
      this.reply({
        type: 'result',
        id,
        ok: false,
        kind: 'budget',
        error: `helper budget exhausted: a program may call the helpers (${HELPER_LIST}) ${MAX_HELPER_CALLS} times in all; keep what they return instead of asking again, and store one value per key, not one per item`,
      })
      return
    }
    // run_program() counts as one tool call (SPEC §17); the program's own calls count as they run.
    if ('counted' in PROGRAM_HELPERS[name]) {
      if (this.sent >= this.limits.maxCalls) {
        this.refuse(id, name)
        return
      }
      this.sent++
    }
    try {
      this.reply({
        type: 'result',
        id,
        ok: true,
        value: PROGRAM_HELPERS[name].answer(this.helperContext, args),
      })
    } catch (error) {
      this.reply({type: 'result', id, ok: false, error: errorText(error), kind: errorKind(error)})
    }
  }

  /** Stops everything still running or waiting; the calls in flight are recorded as failed. */
  close(): void {
    if (this.closed) return
    this.closed = true
    this.queue.length = 0
    this.queueHead = 0
    this.queuedBytes = 0
    // Only calls in flight listen (an Error and its stack trace cost a little on every run).
    if (this.running.size > 0) this.runController.abort(new Error(ENDED_BEFORE_FINISH))
    const now = performance.now()
    for (const call of this.running.values()) {
      this.calls.push({
        tool: traceTool(call.tool),
        args: traceArgs(call.args),
        ok: false,
        ms: Math.round(now - call.startedAt),
        error: ENDED_BEFORE_FINISH,
        ...(call.approval && {approval: call.approval}),
      })
    }
    this.running.clear()
  }

  private readonly countResultBytes = (bytes: number): void => {
    this.resultBytes += bytes
  }

  private begin(call: PendingCall): void {
    this.sent++
    const running: RunningCall = {
      id: call.id,
      tool: call.tool,
      args: call.args,
      bytes: call.bytes,
      startedAt: performance.now(),
      cancelled: false,
    }
    this.running.set(call.id, running)
    this.host
      .callTool(call.tool, call.args, {
        signal: this.runController.signal,
        timeoutMs: this.limits.callTimeoutMs,
        maxResultBytes: this.limits.maxResultBytes,
        // The child parses a lone text item itself: large results are not parsed twice.
        deferTextParsing: true,
        onResultBytes: this.countResultBytes,
        ...(this.hooks.approver && {approve: (tool, args) => this.approve(running, tool, args)}),
        ...(this.hooks.onServerWait && {onServerWait: this.hooks.onServerWait}),
      })
      .then(
        (value) => this.settle(running, {type: 'result', id: call.id, ok: true, value}),
        (error: unknown) =>
          this.settle(running, {
            type: 'result',
            id: call.id,
            ok: false,
            error: errorText(error),
            kind: errorKind(error),
          }),
      )
  }

  private async approve(call: RunningCall, tool: ToolInfo, args: Record<string, unknown>): Promise<void> {
    try {
      const decision = await this.hooks.approver!(tool, args, this.runController.signal)
      if (decision) call.approval = decision
    } catch (error) {
      call.approval = 'denied'
      throw error
    }
  }

  private settle(call: RunningCall, message: ResultMessage): void {
    if (this.closed || this.running.get(call.id) !== call) return
    this.running.delete(call.id)
    const ms = Math.round(performance.now() - call.startedAt)
    // SPEC §12.1: a private source's answer marks the program before the program sees it.
    if (message.ok || message.kind === 'tool_error' || message.kind === 'schema_mismatch')
      this.state.flow.received(call.tool)
    // The answer first: the program goes on while its trace is written.
    this.reply(message)
    const trace: ToolCallTrace = {
      tool: traceTool(call.tool),
      args: traceArgs(call.args),
      ok: message.ok && !call.cancelled,
      ms,
    }
    if (call.cancelled) trace.error = CANCELLED_BY_PROGRAM
    else if (!message.ok) trace.error = traceError(message.error)
    if (call.approval) trace.approval = call.approval
    this.calls.push(trace)
    this.startQueued()
    if (this.hooks.onCallDone) {
      try {
        this.hooks.onCallDone(this.calls.length, trace)
      } catch {
        // A listener's failure is not the program's.
      }
    }
  }

  private startQueued(): void {
    while (this.running.size < this.limits.maxConcurrent && this.queueHead < this.queue.length) {
      const next = this.queue[this.queueHead]!
      // The queue lets go of what it started: its arguments are the call's now.
      this.queue[this.queueHead++] = undefined
      this.queuedBytes -= next.bytes
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead)
        this.queueHead = 0
      }
      if (this.sent < this.limits.maxCalls) this.begin(next)
      else this.refuseQueued(next)
    }
    this.updateHold()
  }
}

/** A ToolError's own kind; anything else thrown on the way is the protocol's failure. */
function errorKind(error: unknown): ToolErrorKind {
  return error instanceof ToolError ? error.kind : 'protocol'
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
