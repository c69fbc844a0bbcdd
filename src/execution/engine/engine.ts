import {dirname} from 'node:path'

import type {ExecutionConfig, StateConfig} from '../../config/schema.js'
import type {ToolHost} from '../../downstream/index.js'
import type {ApprovalPrompter} from '../../permissions/approvals.js'
import type {PermissionPolicy} from '../../permissions/policy.js'
import type {PythonInfo, SandboxBackend} from '../../sandbox/backend.js'
import type {ProgramLookup} from '../calls/program-helpers.js'
import type {ShownImage} from '../protocol/protocol.js'

import {type FlowMark, type FlowRules, withFlowRules} from '../../permissions/flows.js'
import {ProgramApprovals} from '../../permissions/program-approvals.js'
import {sweepOrphanedScratchDirs} from '../../sandbox/scratch.js'
import {unlessAborted} from '../../shared/abortable.js'
import {CHILD_START_TIMEOUT_MS, childMessageBytes, STATE_DEFAULTS} from '../../shared/limits.js'
import {type Logger, silentLogger} from '../../shared/log.js'
import {programLimits} from '../../shared/program-limits.js'
import {markStep, type Steps} from '../../shared/steps.js'
import {preflightSpec} from '../calls/preflight-spec.js'
import {
  type CallApprover,
  type CallPlanner,
  ToolCallBroker,
  type ToolCallListener,
} from '../calls/tool-calls.js'
import {ForkServer} from '../child/fork-server.js'
import {forkServerSpawner} from '../child/forked.js'
import {type ChildRunResult, ProgramChild, RUNNER_PATH} from '../child/index.js'
import {artifactsRoot, artifactsRootProblem, pruneArtifacts} from '../files/artifacts.js'
import {writeShownImages} from '../files/shown-files.js'
import {composeOutcome, type OutcomeParts, type RunOutcome, startFailureText} from '../outcome/outcome.js'
import {KeptState} from '../state/kept-state.js'
import {ProgramState, sessionLimits} from '../state/program-state.js'
import {ProgramSlots, type SlotRelease} from './program-slots.js'
import {WarmPool, warmPoolMax} from './warm-pool.js'

export {type RunOutcome, startFailureOutcome} from '../outcome/outcome.js'

export interface ProgramEngineOptions {
  execution: ExecutionConfig
  /** The `state:` bounds (SPEC §6.2): the largest store() message, and a run's own session when it is given none. Default: STATE_DEFAULTS. */
  state?: StateConfig
  /** The engine's only view of downstream tools (a `ToolRegistry` in the server). */
  host: ToolHost
  backend: SandboxBackend
  /** From `resolvePython(execution.python)`. */
  python: PythonInfo
  /** Default: silent. */
  logger?: Logger
  /** The user's rules for which calls need approval (SPEC §12). Default: none do. */
  permissions?: PermissionPolicy
  /** The data-flow rules (SPEC §12.1), applied with `permissions`. Default: none. */
  flows?: FlowRules
  /**
   * Make children with the backend's fork server when it has one. Default: true, unless the
   * environment variable PTC_MCP_FORK_SERVER is "0".
   */
  forkServer?: boolean
}

export interface RunOptions {
  /** Aborting kills the program's child at once (MCP cancellation). */
  signal?: AbortSignal
  /** Called after every finished tool call with the number finished so far (progress notifications). */
  onToolCallDone?: ToolCallListener
  /** A tool call waits for its server to finish starting, at most `waitMs` (progress notifications). */
  onServerWait?: (server: string, waitMs: number) => void
  /** Who is asked when a call needs approval. Default: nobody, so such calls are denied. */
  prompter?: ApprovalPrompter
  /**
   * While the program waits for a slot (execution.max_concurrent_programs): how many programs are
   * ahead of it, each time that changes; then `undefined` once it has one.
   */
  onQueue?: (ahead?: number) => void
  /** Write the images the program shows into the run's artifacts (`run`: no client to show them to). */
  keepShownImages?: boolean
  /**
   * The session whose values and ./session/ files the program reads and changes (SPEC §6.2): one
   * per serve process. Default: a session of its own, gone when the program ends.
   */
  state?: KeptState
  /** Where the run's steps are timed (shared/steps.ts, opt-in); the child is asked for its own. */
  steps?: Steps
  /** Each piece of the program's output as it arrives (`run` on a terminal shows it live). */
  onOutput?: (chunk: Buffer) => void
  /**
   * A saved program's arguments (SPEC §17): after the module runs, the runner awaits
   * `main(**mainArguments)` and emits its return value. Default: the program runs as written.
   */
  mainArguments?: Record<string, unknown>
  /** The tools this run calls instead of the engine's (a recording, a replay). Default: the engine's host. */
  host?: ToolHost
  /** The saved programs the program may run with run_program() (SPEC §17). Default: none. */
  programs?: ProgramLookup
}

/** Scratch directories left by servers that were killed are removed once per process. */
let sweptScratchDirs = false

/**
 * Runs programs (SPEC §6, §7): each in a fresh sandboxed child taken from a warm pool, with the
 * budget, concurrency and timeouts enforced here, and the outcome composed for the model.
 */
export class ProgramEngine {
  private readonly execution: ExecutionConfig
  private readonly stateLimits: StateConfig
  private readonly host: ToolHost
  private readonly backend: SandboxBackend
  private readonly logger: Logger
  private readonly permissions: PermissionPolicy | undefined
  private readonly flows: FlowRules | undefined
  private readonly pool: WarmPool
  private readonly forkServer: ForkServer | undefined
  /** At most execution.max_concurrent_programs run at once; the others wait here, or are refused. */
  private readonly slots: ProgramSlots
  /** Largest child message; also the bound on answers and on queued calls waiting, in bytes. */
  private readonly maxMessageBytes: number
  /** execution.artifacts_dir resolved (SPEC §14). */
  private readonly artifactsRoot: string
  private closed = false

  constructor(options: ProgramEngineOptions) {
    this.execution = options.execution
    this.stateLimits = options.state ?? {...STATE_DEFAULTS}
    this.host = options.host
    this.backend = options.backend
    this.logger = options.logger ?? silentLogger
    this.permissions = options.permissions
    this.flows = options.flows
    const {execution} = options
    this.artifactsRoot = artifactsRoot(execution.artifacts_dir)
    const rootProblem = artifactsRootProblem(this.artifactsRoot)
    if (rootProblem) this.logger.warn(rootProblem)
    pruneArtifacts(this.artifactsRoot)
    this.maxMessageBytes = childMessageBytes({
      ...execution,
      max_value_bytes: this.stateLimits.max_value_bytes,
    })
    const useForkServer = options.forkServer ?? process.env.PTC_MCP_FORK_SERVER !== '0'
    this.forkServer =
      useForkServer && options.backend.forkServer
        ? new ForkServer({
            python: options.python,
            backend: options.backend,
            runnerPath: RUNNER_PATH,
            runtimePaths: [dirname(RUNNER_PATH)],
            logger: this.logger,
          })
        : undefined
    const limits = programLimits(execution)
    const childOptions = {
      ...(this.forkServer && {spawner: forkServerSpawner(this.forkServer, options.backend)}),
      python: options.python,
      backend: options.backend,
      limits: limits.child,
      maxMessageBytes: this.maxMessageBytes,
      maxOutputBytes: execution.max_output_bytes,
      artifactsRoot: this.artifactsRoot,
      startTimeoutMs: CHILD_START_TIMEOUT_MS,
      bounds: limits.bounds,
      logger: this.logger,
    }
    this.slots = new ProgramSlots(execution.max_concurrent_programs)
    this.pool = new WarmPool({
      size: execution.warm_pool,
      create: () => ProgramChild.start(childOptions),
      // A forked child costs the machine milliseconds and a few MB: its replacement need not
      // wait, and a burst finds its children ready.
      cheap: this.forkServer !== undefined,
      maxSize: warmPoolMax(execution),
      logger: this.logger,
    })
    if (!sweptScratchDirs) {
      sweptScratchDirs = true
      sweepOrphanedScratchDirs(this.logger).catch(() => {})
    }
  }

  /** Programs waiting for a slot (the gateway's queue depth, SPEC §18). */
  get queued(): number {
    return this.slots.queued
  }

  /** Runs one program to its end. Never throws for the program's own failures: see `ok` and `error`. */
  async run(code: string, options: RunOptions = {}): Promise<RunOutcome> {
    if (this.closed) throw new Error('ProgramEngine.run: the engine is closed')
    const {signal} = options
    markStep(options.steps, 'engine')
    let release: SlotRelease
    try {
      release = await this.slots.acquire(signal, options.onQueue)
    } catch (error) {
      return this.nothingRan(signal, `${(error as Error).name}: ${(error as Error).message}`)
    }
    let child: ProgramChild | undefined
    try {
      options.onQueue?.()
      return await this.runInSlot(code, options, (used) => {
        child = used
      })
    } finally {
      release(child?.disposed)
    }
  }

  private async runInSlot(
    code: string,
    options: RunOptions,
    onChild: (child: ProgramChild) => void,
  ): Promise<RunOutcome> {
    const {signal} = options
    let child: ProgramChild
    try {
      child = await this.acquire(signal)
      markStep(options.steps, 'child taken')
      onChild(child)
    } catch (error) {
      if (this.closed) throw new Error('ProgramEngine.run: the engine was closed', {cause: error})
      return this.nothingRan(signal, startFailureText(error))
    }

    const {execution} = this
    const host = options.host ?? this.host
    const state = new ProgramState(options.state ?? new KeptState(this.stateLimits), this.flows)
    const broker = new ToolCallBroker(
      host,
      (message) => child.reply(message),
      {
        maxCalls: execution.max_tool_calls,
        maxConcurrent: execution.max_concurrent_calls,
        callTimeoutMs: execution.tool_call_timeout_seconds * 1000,
        maxResultBytes: execution.max_tool_result_bytes,
        maxQueuedBytes: this.maxMessageBytes,
      },
      {
        onCallDone: options.onToolCallDone,
        onServerWait: options.onServerWait,
        ...this.approvals(child, code, options.prompter, state.flow),
        holdRequests: (hold) => child.holdRequests(hold),
        state,
        programs: options.programs,
      },
    )
    let run: ChildRunResult
    try {
      run = await child.execute(
        {
          code,
          tools: host.listTools().map((tool) => tool.name),
          preflight: preflightSpec(code, host),
          ...(options.mainArguments && {main_args: options.mainArguments}),
          max_emit_bytes: execution.max_output_bytes,
          max_call_bytes: execution.max_tool_result_bytes,
          state: {
            max_value_bytes: state.limits.max_value_bytes,
            max_bytes: state.limits.max_bytes,
            max_session_files: state.limits.max_session_files,
          },
        },
        {
          timeoutMs: execution.timeout_seconds * 1000,
          signal,
          handlers: broker,
          session: {files: state.filesBefore, limits: sessionLimits(state.limits)},
          steps: options.steps,
          onOutput: options.onOutput,
        },
      )
    } catch (error) {
      // The child ended between being handed out and receiving the program.
      child.kill()
      run = {end: {kind: 'crashed', reason: (error as Error).message}, output: '', images: [], elapsedMs: 0}
    }
    broker.close()
    // This program still holds its slot.
    this.pool.refillSoon(this.slots.programs > 1)
    const shownImageFiles =
      options.keepShownImages && child.artifacts
        ? this.keepShown(run.images, child.artifacts.dir.bind(child.artifacts))
        : undefined
    // Rule: a run that kept files prunes the artifacts (SPEC §14: 7 days, 1 GiB in total).
    child.artifacts?.close()
    if (child.artifacts?.path !== undefined) pruneArtifacts(this.artifactsRoot)
    markStep(options.steps, 'run ended')
    return this.outcome({
      end: run.end,
      output: run.output,
      toolCalls: broker.calls,
      resultBytes: broker.resultBytes,
      images: run.images,
      kept: run.kept,
      state: {change: state.finish(run.session), limits: state.limits},
      shownImageFiles,
      elapsedMs: run.elapsedMs,
      sandbox: child.tier,
    })
  }

  /** Writes shown images into the run's artifacts; a failure to write is logged, the run still answered. */
  private keepShown(images: ShownImage[], runDir: () => string): string[] {
    try {
      return writeShownImages(images, runDir)
    } catch (error) {
      this.logger.warn(`could not keep the shown images: ${(error as Error).message}`)
      return []
    }
  }

  /**
   * The gate of one program's calls: asks through `prompter`, with the child's clock stopped while
   * its calls wait, and once before the run for the calls its text shows (SPEC §12).
   */
  private approvals(
    child: ProgramChild,
    code: string,
    prompter: ApprovalPrompter | undefined,
    flow: FlowMark,
  ): {approver?: CallApprover; planner?: CallPlanner} {
    const {permissions} = this
    if (!permissions) return {}
    const approvals = new ProgramApprovals({
      policy: permissions,
      prompter,
      clock: {pause: () => child.pauseClock(), resume: () => child.resumeClock()},
      logger: this.logger,
    })
    return {
      // The data-flow rules (SPEC §12.1) decide first; their question goes through the same check.
      approver: withFlowRules(flow, this.logger, (tool, args, signal, reason) =>
        approvals.check(tool, args, signal, reason),
      ),
      planner: (planned, signal) => {
        // The child could claim anything: a sample shown to the user must be the program's own text.
        const own = planned.map((call) => ({...call, samples: call.samples.filter((s) => code.includes(s))}))
        approvals.plan(own, signal).catch((error: unknown) => {
          this.logger.warn(`the question before the run failed: ${(error as Error).message}`)
        })
      },
    }
  }

  /** Kills every child (running programs end as failed) and removes their scratch directories. */
  async close(): Promise<void> {
    this.closed = true
    await this.pool.close()
    await this.forkServer?.close()
  }

  private async acquire(signal: AbortSignal | undefined): Promise<ProgramChild> {
    if (!signal) return this.pool.acquire()
    signal.throwIfAborted()
    const acquiring = this.pool.acquire()
    try {
      return await unlessAborted(acquiring, signal)
    } catch (error) {
      // Cancelled while the child was starting: it is not used for anything else.
      acquiring.then(
        (child) => child.kill(),
        () => {},
      )
      throw error
    }
  }

  /** The outcome of a program that never reached a child: cancelled, or why it could not start. */
  private nothingRan(signal: AbortSignal | undefined, startFailure: string): RunOutcome {
    const nothing = {output: '', toolCalls: [], elapsedMs: 0, sandbox: this.backend.name}
    if (signal?.aborted) return this.outcome({...nothing, end: {kind: 'cancelled'}})
    return this.outcome({...nothing, end: {kind: 'crashed', reason: ''}, startFailure})
  }

  private outcome(parts: OutcomeParts): RunOutcome {
    return composeOutcome(parts, this.execution)
  }
}
