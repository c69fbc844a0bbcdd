import {performance} from 'node:perf_hooks'

import type {ChildExit, SpawnedChild} from './spawner.js'
import type {ChildEnd, ChildOptions, ChildRunOptions, ChildRunResult} from './types.js'

import {MAX_STEPS} from '../../shared/limits.js'
import {childSteps, markStep, type Steps} from '../../shared/steps.js'
import {RunArtifacts} from '../files/artifacts.js'
import {sessionFileLines} from '../files/session-files.js'
import {
  type ChildMessage,
  ProtocolError,
  type RefusedRequest,
  type ResultMessage,
  type RunMessage,
  startMessage,
} from '../protocol/protocol.js'
import {ChildChannel} from './channel.js'
import {ChildOutput} from './output.js'
import {childEnvironment, describeExit, spawnThroughBackend} from './process.js'
import {ProgramRun} from './run.js'
import {ChildScratch} from './scratch-dir.js'
import {
  exitedDuringStartup,
  readyReport,
  startError,
  startupBroken,
  startupFailed,
  stoppedBeforeReady,
  untilReady,
} from './startup.js'

/** How long a child whose channel closed may take to exit by itself before it is killed. */
const EXIT_GRACE_MS = 250

/**
 * How long a child that reported `done` lingers (runner.py waits) before it is killed: tearing a
 * process down (and, with bwrap, its namespaces) after the answer has gone out does not delay it.
 */
const DONE_KILL_DELAY_MS = 20

/** How long pipes may stay open after the process group was killed (a process that escaped it). */
const DRAIN_LIMIT_MS = 1000

/** A run and where its result goes once complete. */
interface Handover {
  run: ProgramRun
  resolve: (result: ChildRunResult) => void
}

/**
 * Where the child is. `starting` holds `settle` once the process exists (it resolves or rejects
 * `ready`); `finishing` is a run that has ended whose output may not be complete yet.
 */
type Phase =
  | {name: 'starting'; settle?: (error?: Error) => void}
  | {name: 'ready'}
  | (Handover & {name: 'running'})
  | (Handover & {name: 'finishing'; end: ChildEnd; endedAt: number})
  | {name: 'ended'}

/**
 * One sandboxed Python child, used for one program. `start` spawns it, confined, and it becomes
 * ready (runner loaded, waiting for the program) without any program: the warm pool keeps such
 * children. Every child is killed (its whole process group) and its scratch directory removed.
 */
export class ProgramChild {
  /** Resolves when the child waits for a program; rejects with SandboxError if it cannot start. */
  readonly ready: Promise<void>
  /** Resolves once the process is gone and the scratch directory removed. Never rejects. */
  readonly disposed: Promise<void>
  /** The sandbox layer in force, as the backend (or the child's confine step) reports it. */
  tier = 'unknown'
  /** Where this child's run keeps files (a child runs one program), when options.artifactsRoot is set. */
  readonly artifacts: RunArtifacts | undefined

  private phase: Phase = {name: 'starting'}
  private readonly scratch = new ChildScratch()
  private process: SpawnedChild | undefined
  private channel: ChildChannel | undefined
  private exit: ChildExit | undefined
  private readonly output: ChildOutput
  private markDisposed!: () => void
  private drainTimer: NodeJS.Timeout | undefined
  private killTimer: NodeJS.Timeout | undefined
  /** Kills a process whose channel closed and that did not report its exit within EXIT_GRACE_MS. */
  private graceTimer: NodeJS.Timeout | undefined
  /** The run's timed steps, when asked for (shared/steps.ts). */
  private steps: Steps | undefined

  private constructor(private readonly options: ChildOptions) {
    this.artifacts = options.artifactsRoot === undefined ? undefined : new RunArtifacts(options.artifactsRoot)
    this.output = new ChildOutput(options.maxOutputBytes, this.artifacts)
    this.disposed = new Promise((resolve) => {
      this.markDisposed = resolve
    })
    this.ready = this.boot()
    // The pool may never await a child it discards; its failure is reported to whoever uses it.
    this.ready.catch(() => {})
  }

  static start(options: ChildOptions): ProgramChild {
    return new ProgramChild(options)
  }

  /** True while the child waits for a program. */
  get usable(): boolean {
    return this.phase.name === 'ready'
  }

  /** Hands the program over and resolves when the run has ended and the output is complete. */
  execute(run: Omit<RunMessage, 'type' | 'end_marker'>, options: ChildRunOptions): Promise<ChildRunResult> {
    const {channel} = this
    if (this.phase.name !== 'ready' || !channel)
      throw new Error('ProgramChild.execute: the child is not ready')
    let resolve!: (result: ChildRunResult) => void
    const result = new Promise<ChildRunResult>((settle) => {
      resolve = settle
    })
    channel.startFlowControl()
    const {session} = options
    // The session's files first: the child writes them into ./session/ before the program starts.
    if (session && session.files.size > 0) channel.sendLines(sessionFileLines(session.files))
    const message: RunMessage = {
      type: 'run',
      ...run,
      end_marker: this.output.endMarker,
      ...(options.steps && {steps: true}),
    }
    this.output.listen(options.onOutput)
    // Marked before the write: the child may read it before this process runs on.
    this.steps = options.steps
    markStep(this.steps, 'sending run')
    channel.send(message)
    const active = new ProgramRun(
      options.handlers,
      options.timeoutMs,
      (end) => this.finish(end),
      () => {
        if (!this.artifacts) throw new Error('no artifacts directory')
        return this.artifacts.dir()
      },
      session?.limits,
    )
    this.phase = {name: 'running', run: active, resolve}
    active.cancelOn(options.signal)
    return result
  }

  /**
   * Stops the program's clock (its timeout) until `resumeClock`: while the user decides on a call
   * (SPEC §12). Pauses nest: the clock runs again when every pause has been resumed.
   */
  pauseClock(): void {
    if (this.phase.name === 'running') this.phase.run.pause()
  }

  resumeClock(): void {
    if (this.phase.name === 'running') this.phase.run.resume()
  }

  /** Answers a call or helper request; ignored once the run has ended. */
  reply(message: ResultMessage): void {
    if (this.phase.name === 'running') this.channel?.sendResult(message)
  }

  /**
   * Stops (or resumes) reading the child's requests while the engine has enough of them waiting:
   * the child then blocks on its next write, and the server holds no more of them.
   */
  holdRequests(hold: boolean): void {
    this.channel?.hold('calls', hold)
  }

  /** Kills the child's process group now. Safe at any stage, any number of times. */
  kill(): void {
    const {phase} = this
    if (phase.name === 'running') this.finish({kind: 'crashed', reason: 'the child was killed'})
    else if (phase.name !== 'finishing') this.phase = {name: 'ended'}
    this.killGroup()
    if (phase.name === 'starting') phase.settle?.(stoppedBeforeReady())
  }

  private async boot(): Promise<void> {
    const {options} = this
    try {
      const spawner = options.spawner ?? spawnThroughBackend(options.backend)
      const scratchDir = await this.scratch.create(spawner.ownScratch !== true)
      if (this.phase.name !== 'starting') throw stoppedBeforeReady()
      const spawned = await spawner.spawn({
        makeScratchOnHost: () => this.scratch.makeOnHost(),
        python: options.python,
        scratchDir,
        env: childEnvironment(scratchDir),
        bounds: options.bounds,
        limits: options.limits,
      })
      this.attach(spawned)
      const {phase} = this
      if (phase.name !== 'starting') throw stoppedBeforeReady()
      this.tier = spawned.tier
      const ready = untilReady(phase, options.startTimeoutMs)
      if (!spawned.started) this.channel?.send(startMessage(spawned.confine, options.limits))
      await ready
      if (this.phase.name !== 'starting') throw stoppedBeforeReady()
      this.phase = {name: 'ready'}
    } catch (error) {
      this.phase = {name: 'ended'}
      this.killGroup()
      if (!this.process) this.dispose()
      throw startError(error)
    }
  }

  /** Follows the process: its pipes, its channel and its exit. */
  private attach(spawned: SpawnedChild): void {
    this.process = spawned
    this.output.attach(spawned.stdout, spawned.stderr, () => {
      this.maybeResolveRun()
      this.drained()
    })
    this.channel = new ChildChannel(
      spawned.channel,
      {
        maxMessageBytes: this.options.maxMessageBytes,
        maxResultBytes: this.options.maxOutputBytes,
        answerStallMs: this.options.answerStallMs,
        logger: this.options.logger,
      },
      {
        onMessage: (message, bytes) => this.onMessage(message, bytes),
        onRefused: (request) => this.onRefused(request),
        onBroken: (reason) => this.onBroken(reason),
        onStalled: (reason) => this.finish({kind: 'crashed', reason}),
        onClosed: () => this.onChannelClosed(),
      },
    )
    spawned.onExit((exit) => this.onExit(exit))
  }

  private onMessage(message: ChildMessage, bytes: number): void {
    const {phase} = this
    switch (phase.name) {
      case 'running': {
        const {steps} = this
        if (steps && message.type === 'done') {
          steps.push(...childSteps(message.steps, MAX_STEPS - 2 - steps.length))
          markStep(steps, 'done read')
        }
        phase.run.onMessage(message, bytes)
        return
      }
      case 'starting': {
        this.onStartMessage(phase, message)
        return
      }
      case 'ready': {
        throw new ProtocolError(`unexpected "${message.type}" message`)
      }
      default:
      // The run is over: what the child still sends is dropped.
    }
  }

  private onStartMessage(phase: Extract<Phase, {name: 'starting'}>, message: ChildMessage): void {
    if (message.type === 'ready') {
      const report = readyReport(message.confine)
      if (report.tier !== undefined) this.tier = report.tier
      // On the host's disk, the scratch dir is watched against its bound.
      if (!report.scratchOnTmpfs) {
        this.scratch.watch(this.options.bounds, (reason) => {
          this.finish({kind: 'crashed', reason})
          this.killGroup()
        })
      }
      phase.settle?.()
      return
    }
    if (message.type === 'startup_failed') {
      phase.settle?.(startupFailed(message.stage, message.error))
      this.kill()
      return
    }
    throw new ProtocolError(`unexpected "${message.type}" message`)
  }

  /** A request refused before parsing is answered with the error, unless the child is not running. */
  private onRefused(request: RefusedRequest): void {
    const {phase} = this
    if (phase.name === 'finishing' || phase.name === 'ended') return
    if (phase.name !== 'running') throw request
    this.reply(phase.run.refusal(request))
  }

  private onBroken(reason: string): void {
    const {phase} = this
    if (phase.name === 'running') this.finish({kind: 'crashed', reason: `protocol error: ${reason}`})
    else if (phase.name !== 'finishing') {
      if (phase.name === 'starting') phase.settle?.(startupBroken(reason))
      this.kill()
    }
  }

  private onChannelClosed(): void {
    // Nothing more can arrive. The process is usually exiting (a wrapper such as bwrap a moment
    // after the interpreter): let it report its own exit status, and kill it if it does not (the
    // program closed the channel and went on).
    if (!this.exit) this.graceTimer = setTimeout(() => this.killGroup(), EXIT_GRACE_MS).unref()
    this.drained()
    this.onProcessGone()
  }

  private onExit(exit: ChildExit): void {
    this.exit = exit
    // It exited by itself: the grace is over (a timer fewer to fire per program).
    clearTimeout(this.graceTimer)
    this.closePipesSoon()
    this.onProcessGone()
    this.dispose()
  }

  /**
   * Acts once the process has exited AND the channel is closed: the exit can be seen before the
   * last channel data (its `done` or `startup_failed`) has been read.
   */
  private onProcessGone(): void {
    if (!this.exit || !this.channel?.closed) return
    const {phase} = this
    const description = describeExit(this.exit, this.options.limits.cpu_seconds)
    switch (phase.name) {
      case 'starting': {
        phase.settle?.(exitedDuringStartup(description, this.output.text().trim()))
        this.phase = {name: 'ended'}
        break
      }
      case 'running': {
        this.finish({kind: 'crashed', reason: `the program's Python process ${description} before finishing`})
        break
      }
      case 'ready': {
        this.phase = {name: 'ended'}
        break
      }
      default:
      // A run that has ended resolves when its output is complete.
    }
  }

  private finish(end: ChildEnd): void {
    const {phase} = this
    if (phase.name !== 'running') return
    this.phase = {...phase, name: 'finishing', end, endedAt: performance.now()}
    phase.run.stop()
    this.channel?.stopFlowControl()
    if (end.kind === 'done') {
      const linger = this.process?.lingerAfterDoneMs ?? DONE_KILL_DELAY_MS
      this.killTimer = setTimeout(() => this.killGroup(), linger)
    } else this.killGroup()
    this.closePipesSoon()
    this.maybeResolveRun()
  }

  /** Gives pipes held open by a process that escaped the group a bounded time to close. */
  private closePipesSoon(): void {
    if ((!this.output.pipesOpen && this.channel?.closed) || this.drainTimer) return
    this.drainTimer = setTimeout(() => {
      this.output.destroyPipes()
      this.channel?.destroy()
    }, DRAIN_LIMIT_MS)
    this.drainTimer.unref()
  }

  /** Pipes and channel closed: nothing is left for the drain timer to close. */
  private drained(): void {
    if (!this.drainTimer || this.output.pipesOpen || !this.channel?.closed) return
    clearTimeout(this.drainTimer)
    this.drainTimer = undefined
  }

  private maybeResolveRun(): void {
    const {phase} = this
    if (phase.name !== 'finishing') return
    // After `done`, the end marker proves the output complete; otherwise wait for EOF.
    const complete = phase.end.kind === 'done' && this.output.endsWithMarker
    if (!complete && this.output.pipesOpen) return
    markStep(this.steps, 'output complete')
    this.phase = {name: 'ended'}
    phase.resolve({
      end: phase.end,
      output: this.output.text(),
      images: phase.run.shown,
      kept: phase.run.keptFiles(phase.end.kind === 'done'),
      session: phase.run.sessionFiles(phase.end.kind === 'done'),
      ...(this.output.wholeOutputPath !== undefined && {outputFile: this.output.wholeOutputPath}),
      elapsedMs: phase.endedAt - phase.run.startedAt,
    })
  }

  private killGroup(): void {
    clearTimeout(this.killTimer)
    this.process?.kill()
  }

  /** Removes the scratch directory (once the process is gone), then resolves `disposed`. */
  private dispose(): void {
    this.artifacts?.close()
    this.scratch.remove(this.options.logger).then(this.markDisposed, this.markDisposed)
  }
}
