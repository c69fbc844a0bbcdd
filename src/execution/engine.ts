import {dirname} from 'node:path'

import type {ExecutionConfig} from '../config/schema.js'
import type {ToolHost} from '../downstream/types.js'
import type {ApprovalPrompter} from '../permissions/approvals.js'
import type {PermissionPolicy} from '../permissions/policy.js'
import type {ProgramBounds, PythonInfo, SandboxBackend} from '../sandbox/backend.js'
import type {KeptFile, KeptFiles} from './kept-files.js'
import type {ChildLimits, ShownImage} from './protocol.js'

import {PtcError} from '../errors.js'
import {childMessageBytes} from '../limits.js'
import {type Logger, silentLogger} from '../log.js'
import {ProgramApprovals} from '../permissions/approvals.js'
import {artifactsRoot, pruneArtifacts} from './artifacts.js'
import {ForkServer} from './child/fork-server.js'
import {forkServerSpawner} from './child/forked.js'
import {type ChildEnd, type ChildRunResult, ProgramChild, RUNNER_PATH} from './child/index.js'
import {formatOutcome, type ToolCallTrace} from './format.js'
import {ProgramSlots, type SlotRelease} from './program-slots.js'
import {sweepOrphanedScratchDirs} from './scratch.js'
import {writeShownImages} from './shown-files.js'
import {type CallApprover, ToolCallBroker, type ToolCallListener} from './tool-calls.js'
import {WarmPool} from './warm-pool.js'

export type {ToolCallTrace} from './format.js'

export interface ProgramEngineOptions {
  execution: ExecutionConfig
  /** The engine's only view of downstream tools (a `ToolRegistry` in the server). */
  host: ToolHost
  backend: SandboxBackend
  /** From `resolvePython(execution.python)`. */
  python: PythonInfo
  /** Default: silent. */
  logger?: Logger
  /** The user's rules for which calls need approval (SPEC §12). Default: none do. */
  permissions?: PermissionPolicy
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
  /** Who is asked when a call needs approval. Default: nobody, so such calls are denied. */
  prompter?: ApprovalPrompter
  /**
   * While the program waits for a slot (execution.max_concurrent_programs): how many programs are
   * ahead of it, each time that changes; then `undefined` once it has one.
   */
  onQueue?: (ahead?: number) => void
  /** Write the images the program shows into the run's artifacts (`run`: no client to show them to). */
  keepShownImages?: boolean
}

/** What `execute_program` returns: `text` is SPEC §8, the rest its structured content. */
export interface RunOutcome {
  ok: boolean
  /** Captured stdout + stderr; over max_output_bytes, its head and tail around `... [N bytes omitted]`. */
  output: string
  /** The last emit() value; null when emit() was not called. */
  result: unknown
  /** Trimmed traceback or limit/sandbox message; null on success. */
  error: string | null
  tool_calls: ToolCallTrace[]
  /** The sandbox tier in force for this run, e.g. "none" or "linux:bwrap+landlock+seccomp". */
  sandbox: string
  text: string
  /** Images the program passed to show() (SPEC §14), returned after the text. */
  images: ShownImage[]
  /** The files kept from ./out/ (SPEC §14), also listed in `text`; returned as resource links. */
  files: KeptFile[]
  /** With `keepShownImages`: where the shown images were written, in order. */
  shownImageFiles?: string[]
}

interface OutcomeParts {
  end: ChildEnd
  output: string
  toolCalls: ToolCallTrace[]
  /** Bytes of tool results the program received. */
  resultBytes?: number
  images?: ShownImage[]
  kept?: KeptFiles
  shownImageFiles?: string[]
  elapsedMs: number
  sandbox: string
  /** Set when no child could be started: the error text. */
  startFailure?: string
}

/** Bound on starting a child (spawn, confinement, runner load); not part of the program's time. */
const START_TIMEOUT_MS = 30_000

/** Scratch directories left by servers that were killed are removed once per process. */
let sweptScratchDirs = false

/** Rlimits every child sets on itself (SPEC §7), derived from the execution config. */
export function childLimits(execution: ExecutionConfig): ChildLimits {
  return {
    cpu_seconds: execution.timeout_seconds + 2,
    // Room for the interpreter, a few parsed results of the largest size, and thread stacks.
    address_space_bytes: 2 * 1024 ** 3 + 8 * execution.max_tool_result_bytes,
    file_size_bytes: Math.min(64 * 1024 ** 2, execution.max_scratch_bytes),
    open_files: 256,
  }
}

/** Threads a program may run at once (SPEC §15). */
const MAX_THREADS = 256
/** Bytes of scratch per file the program may keep: its inode bound follows its byte bound. */
const SCRATCH_BYTES_PER_FILE = 4096

/** Per-program bounds the sandbox enforces (SPEC §15), from the execution config. */
export function programBounds(execution: ExecutionConfig): ProgramBounds {
  return {
    scratchBytes: execution.max_scratch_bytes,
    scratchFiles: Math.max(1024, Math.floor(execution.max_scratch_bytes / SCRATCH_BYTES_PER_FILE)),
    threads: MAX_THREADS,
  }
}

/**
 * Runs programs (SPEC §6, §7): each in a fresh sandboxed child taken from a warm pool, with the
 * budget, concurrency and timeouts enforced here, and the outcome composed for the model.
 */
export class ProgramEngine {
  private readonly execution: ExecutionConfig
  private readonly host: ToolHost
  private readonly backend: SandboxBackend
  private readonly logger: Logger
  private readonly permissions: PermissionPolicy | undefined
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
    this.host = options.host
    this.backend = options.backend
    this.logger = options.logger ?? silentLogger
    this.permissions = options.permissions
    const {execution} = options
    this.artifactsRoot = artifactsRoot(execution.artifacts_dir)
    pruneArtifacts(this.artifactsRoot)
    this.maxMessageBytes = childMessageBytes(execution)
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
    const childOptions = {
      ...(this.forkServer && {spawner: forkServerSpawner(this.forkServer, options.backend)}),
      python: options.python,
      backend: options.backend,
      limits: childLimits(execution),
      maxMessageBytes: this.maxMessageBytes,
      maxOutputBytes: execution.max_output_bytes,
      artifactsRoot: this.artifactsRoot,
      startTimeoutMs: START_TIMEOUT_MS,
      bounds: programBounds(execution),
      logger: this.logger,
    }
    this.slots = new ProgramSlots(execution.max_concurrent_programs)
    this.pool = new WarmPool({
      size: execution.warm_pool,
      create: () => ProgramChild.start(childOptions),
      // A forked child costs the machine milliseconds: its replacement need not wait.
      cheap: this.forkServer !== undefined,
      logger: this.logger,
    })
    if (!sweptScratchDirs) {
      sweptScratchDirs = true
      sweepOrphanedScratchDirs(this.logger).catch(() => {})
    }
  }

  /** Runs one program to its end. Never throws for the program's own failures: see `ok` and `error`. */
  async run(code: string, options: RunOptions = {}): Promise<RunOutcome> {
    if (this.closed) throw new Error('ProgramEngine.run: the engine is closed')
    const {signal} = options
    let release: SlotRelease
    try {
      release = await this.slots.acquire(signal, options.onQueue)
    } catch (error) {
      const nothingRan = {output: '', toolCalls: [], elapsedMs: 0, sandbox: this.backend.name}
      if (signal?.aborted) return this.outcome({...nothingRan, end: {kind: 'cancelled'}})
      return this.outcome({
        ...nothingRan,
        end: {kind: 'crashed', reason: ''},
        startFailure: `${(error as Error).name}: ${(error as Error).message}`,
      })
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
      onChild(child)
    } catch (error) {
      if (this.closed) throw new Error('ProgramEngine.run: the engine was closed', {cause: error})
      const nothingRan = {output: '', toolCalls: [], elapsedMs: 0, sandbox: this.backend.name}
      if (signal?.aborted) return this.outcome({...nothingRan, end: {kind: 'cancelled'}})
      return this.outcome({
        ...nothingRan,
        end: {kind: 'crashed', reason: ''},
        startFailure: startFailureText(error),
      })
    }

    const {execution} = this
    const broker = new ToolCallBroker(
      this.host,
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
        approver: this.approver(child, options.prompter),
        holdRequests: (hold) => child.holdRequests(hold),
      },
    )
    let run: ChildRunResult
    try {
      run = await child.execute(
        {
          code,
          tools: this.host.listTools().map((tool) => tool.name),
          max_emit_bytes: execution.max_output_bytes,
          max_call_bytes: execution.max_tool_result_bytes,
        },
        {timeoutMs: execution.timeout_seconds * 1000, signal, handlers: broker},
      )
    } catch (error) {
      // The child ended between being handed out and receiving the program.
      child.kill()
      run = {end: {kind: 'crashed', reason: (error as Error).message}, output: '', images: [], elapsedMs: 0}
    }
    broker.close()
    this.pool.refillSoon()
    const shownImageFiles =
      options.keepShownImages && child.artifacts
        ? this.keepShown(run.images, child.artifacts.dir.bind(child.artifacts))
        : undefined
    // Rule: a run that kept files prunes the artifacts (SPEC §14: 7 days, 1 GiB in total).
    if (child.artifacts?.path !== undefined) pruneArtifacts(this.artifactsRoot)
    return this.outcome({
      end: run.end,
      output: run.output,
      toolCalls: broker.calls,
      resultBytes: broker.resultBytes,
      images: run.images,
      kept: run.kept,
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

  /** The gate of one program's calls: asks through `prompter`, with the child's clock stopped meanwhile. */
  private approver(child: ProgramChild, prompter: ApprovalPrompter | undefined): CallApprover | undefined {
    const {permissions} = this
    if (!permissions) return undefined
    const approvals = new ProgramApprovals({
      policy: permissions,
      prompter,
      clock: {pause: () => child.pauseClock(), resume: () => child.resumeClock()},
      logger: this.logger,
    })
    return (tool, args, signal) => approvals.check(tool, args, signal)
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
    let onAbort: (() => void) | undefined
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason)
      signal.addEventListener('abort', onAbort, {once: true})
    })
    try {
      return await Promise.race([acquiring, aborted])
    } catch (error) {
      // Cancelled while the child was starting: it is not used for anything else.
      acquiring.then(
        (child) => child.kill(),
        () => {},
      )
      throw error
    } finally {
      signal.removeEventListener('abort', onAbort!)
    }
  }

  private outcome({
    end,
    output,
    toolCalls,
    resultBytes = 0,
    images = [],
    kept,
    shownImageFiles,
    elapsedMs,
    sandbox,
    startFailure,
  }: OutcomeParts): RunOutcome {
    const done = end.kind === 'done' ? end : undefined
    const ok = done?.ok === true
    const error = ok ? null : (startFailure ?? errorText(end, this.execution))
    const hasResult = ok && done.hasResult
    const result = hasResult ? (done.result ?? null) : null
    const text = formatOutcome({
      ok,
      output,
      error,
      hasResult,
      result,
      toolCalls,
      resultBytes,
      elapsedMs,
      trace: this.execution.trace,
      keptFiles: kept,
    })
    return {
      ok,
      output,
      result,
      error,
      tool_calls: toolCalls,
      sandbox,
      text,
      images,
      files: kept?.files ?? [],
      ...(shownImageFiles && {shownImageFiles}),
    }
  }
}

function errorText(end: ChildEnd, execution: ExecutionConfig): string {
  switch (end.kind) {
    case 'cancelled': {
      return 'CancelledError: the program was cancelled by the client'
    }
    case 'crashed': {
      return `RuntimeError: ${end.reason}`
    }
    case 'done': {
      return end.error ?? 'the program failed'
    }
    case 'timeout': {
      return `TimeoutError: Execution exceeded ${execution.timeout_seconds}s limit`
    }
  }
}

function startFailureText(error: unknown): string {
  if (error instanceof PtcError) {
    const label = error.code === 'PYTHON_NOT_FOUND' ? 'PythonNotFoundError' : 'SandboxError'
    return `${label}: ${error.message}${error.suggestion ? ` (${error.suggestion})` : ''}`
  }
  return `SandboxError: ${error instanceof Error ? error.message : String(error)}`
}

/**
 * The outcome of a program that could not even be handed to an engine (no usable Python, the
 * sandbox unavailable): the same failure shape as any run, with the error and its fix.
 */
export function startFailureOutcome(error: unknown, execution: ExecutionConfig, sandbox: string): RunOutcome {
  const text = startFailureText(error)
  return {
    ok: false,
    output: '',
    result: null,
    error: text,
    tool_calls: [],
    sandbox,
    images: [],
    files: [],
    text: formatOutcome({
      ok: false,
      output: '',
      error: text,
      hasResult: false,
      result: null,
      toolCalls: [],
      elapsedMs: 0,
      trace: execution.trace,
    }),
  }
}
