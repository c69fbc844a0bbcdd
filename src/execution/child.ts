import type {Socket} from 'node:net'

import {type ChildProcess, spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {constants} from 'node:os'
import {dirname} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath} from 'node:url'

import type {Logger} from '../log.js'
import type {ProgramBounds, PythonInfo, SandboxBackend} from '../sandbox/backend.js'

import {hasMedia} from '../downstream/result-parser.js'
import {JsonText} from '../downstream/types.js'
import {SandboxError} from '../errors.js'
import {ARTIFACT_MAX_RUN_BYTES, RunArtifacts} from './artifacts.js'
import {type KeptFiles, KeptFilesWriter} from './kept-files.js'
import {EndMarkedStream, OutputCapture, type OutputSpill} from './output-capture.js'
import {
  type ChildLimits,
  type ChildMessage,
  type HelperName,
  LineSplitter,
  MAX_SHOWN_BYTES,
  MAX_SHOWN_IMAGES,
  parseChildMessage,
  ProtocolError,
  RefusedRequest,
  type ResultMessage,
  type RunMessage,
  type ShownImage,
  type StartMessage,
} from './protocol.js'
import {createScratchDir, removeScratchDir, watchScratch} from './scratch.js'

/** The bootstrap every child runs (copied next to the compiled file by scripts/copy-assets.js). */
export const RUNNER_PATH = fileURLToPath(new URL('runner.py', import.meta.url))

/** A text result longer than this goes to the child in slices of this many characters. */
const TEXT_SLICE_CHARS = 256 * 1024

/** A large text result on its way to the child, and how far it got. */
interface TextInFlight {
  text: string
  offset: number
}

/** How long a child whose channel closed may take to exit by itself before it is killed. */
const EXIT_GRACE_MS = 250

/**
 * How long a child that reported `done` lingers (runner.py waits) before it is killed. Tearing a
 * process down (and, with bwrap, its namespaces) costs 1–2 ms of CPU on a small machine: done after
 * the answer has gone out, it does not delay it (npm run bench, print(1) after a pause: 6.0 → 4.3 ms).
 */
const DONE_KILL_DELAY_MS = 20

/** How long pipes may stay open after the process group was killed (a process that escaped it). */
const DRAIN_LIMIT_MS = 1000

/** How long answers may wait unread, over the backlog bound, before the run ends. */
export const ANSWER_STALL_MS = 10_000

export interface ChildOptions {
  python: PythonInfo
  backend: SandboxBackend
  limits: ChildLimits
  /**
   * Largest line the child may send; a longer one ends the run. Also the bound on answers waiting
   * for the child to read them: over it, the child's next requests are not read until it catches up.
   */
  maxMessageBytes: number
  /** Cap on captured fd 1 + fd 2 output (UTF-8 bytes), and on the `done` result's JSON. */
  maxOutputBytes: number
  /** execution.artifacts_dir resolved: output over the cap is kept whole in a run directory there. */
  artifactsRoot?: string
  /** How long answers may wait over the backlog bound before the run ends. Default ANSWER_STALL_MS. */
  answerStallMs?: number
  /** Bound on spawn + confinement + runner load. */
  startTimeoutMs: number
  /** Scratch and thread bounds for the backend to enforce. Default: DEFAULT_BOUNDS. */
  bounds?: ProgramBounds
  logger: Logger
}

/** How a run ended, from the child's point of view. */
export type ChildEnd =
  | {kind: 'done'; ok: boolean; error: string | null; hasResult: boolean; result: unknown}
  | {kind: 'timeout'}
  | {kind: 'cancelled'}
  | {kind: 'crashed'; reason: string}

export interface ChildRunResult {
  end: ChildEnd
  output: string
  /** What the program passed to show(), in order. */
  images: ShownImage[]
  /** The file that keeps the whole output, when it went over the cap. */
  outputFile?: string
  /** The files kept from ./out/ (SPEC §14). */
  kept?: KeptFiles
  /** From hand-over of the program to its end. */
  elapsedMs: number
}

/** What the engine does with the child's requests; it answers with `ProgramChild.reply`. */
export interface ChildRequestHandlers {
  /** `bytes`: the size of the call's message, what its arguments cost the server (about). */
  onCall(id: number, tool: string, args: Record<string, unknown>, bytes: number): void
  onHelper(id: number, name: HelperName, args: Record<string, unknown>): void
  onCancel(id: number): void
}

export interface ChildRunOptions {
  timeoutMs: number
  signal?: AbortSignal
  handlers: ChildRequestHandlers
}

/** Keeps output over the cap whole in the run's artifacts directory (SPEC §14). */
function outputSpill(artifacts: RunArtifacts | undefined): OutputSpill | undefined {
  return artifacts && {runDir: () => artifacts.dir(), maxBytes: ARTIFACT_MAX_RUN_BYTES}
}

/** The environment of every child: nothing of the server's own (SPEC §7). */
export function childEnvironment(scratchDir: string): Record<string, string> {
  return {
    HOME: scratchDir,
    TMPDIR: scratchDir,
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONIOENCODING: 'utf8',
  }
}

type State = 'starting' | 'ready' | 'running' | 'ended'

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

  private state: State = 'starting'
  private killed = false
  private exited = false
  private channelClosed = false
  private scratchDir: string | undefined
  private proc: ChildProcess | undefined
  private channel: Socket | undefined
  private readonly capture: OutputCapture
  /** Written by the runner at the very end of the program's output (after `done` it is complete). */
  private readonly endMarker = `<ptc-mcp output end ${randomBytes(12).toString('hex')}>`
  private readonly stdout: EndMarkedStream
  private readonly splitter: LineSplitter
  private readonly pipesOpen = new Set<string>()
  /** Writes waiting behind a large text that is going out a slice at a time. */
  private readonly writeQueue: (string | TextInFlight)[] = []
  /** Characters in `writeQueue` not yet handed to the socket. */
  private queuedChars = 0
  /** Set while the child's requests are not read because it has not read the answers. */
  private stallTimer: NodeJS.Timeout | undefined
  /** Why the child's requests are not being read: answers it has not taken, calls waiting. */
  private readonly holds = new Set<'answers' | 'calls'>()
  /** Call and helper ids must increase: a reused id would run twice under one trace entry. */
  private lastRequestId = 0
  private readonly shown: ShownImage[] = []
  /** The ./out/ files the runner sends after the program, before `done` (SPEC §14). */
  private readonly kept: KeptFilesWriter
  private exitDescription = 'the Python process ended'
  private startupFailure: Error | undefined
  private settleReady: ((error?: Error) => void) | undefined
  private markDisposed!: () => void
  private disposing = false
  private stopWatching: (() => void) | undefined

  // Set while running.
  private handlers: ChildRequestHandlers | undefined
  private end: ChildEnd | undefined
  private startedAt = 0
  private endedAt = 0
  private timer: NodeJS.Timeout | undefined
  /** When the program's time runs out, on the performance clock; moved on by pauses. */
  private deadlineAt = 0
  /** Pauses in force (calls waiting for the user's approval); the clock runs when 0. */
  private pauses = 0
  private pausedAt = 0
  private drainTimer: NodeJS.Timeout | undefined
  private killTimer: NodeJS.Timeout | undefined
  private detachSignal: (() => void) | undefined
  private resolveRun: ((result: ChildRunResult) => void) | undefined

  private constructor(private readonly options: ChildOptions) {
    this.artifacts = options.artifactsRoot === undefined ? undefined : new RunArtifacts(options.artifactsRoot)
    this.capture = new OutputCapture(options.maxOutputBytes, outputSpill(this.artifacts))
    this.kept = new KeptFilesWriter(() => {
      if (!this.artifacts) throw new Error('no artifacts directory')
      return this.artifacts.dir()
    })
    this.stdout = new EndMarkedStream(Buffer.from(this.endMarker), (chunk) => this.capture.write(chunk))
    this.splitter = new LineSplitter(options.maxMessageBytes)
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
    return this.state === 'ready' && !this.killed
  }

  /** Hands the program over and resolves when the run has ended and the output is complete. */
  execute(run: Omit<RunMessage, 'type' | 'end_marker'>, options: ChildRunOptions): Promise<ChildRunResult> {
    if (!this.usable) throw new Error('ProgramChild.execute: the child is not ready')
    this.state = 'running'
    this.handlers = options.handlers
    const result = new Promise<ChildRunResult>((resolve) => {
      this.resolveRun = resolve
    })
    const message: RunMessage = {type: 'run', ...run, end_marker: this.endMarker}
    this.write(JSON.stringify(message))
    this.startedAt = performance.now()
    this.deadlineAt = this.startedAt + options.timeoutMs
    this.pauses = 0
    this.timer = setTimeout(() => this.finish({kind: 'timeout'}), options.timeoutMs)
    const {signal} = options
    if (signal) {
      const onAbort = (): void => this.finish({kind: 'cancelled'})
      if (signal.aborted) onAbort()
      else {
        signal.addEventListener('abort', onAbort, {once: true})
        this.detachSignal = () => signal.removeEventListener('abort', onAbort)
      }
    }
    return result
  }

  /**
   * Stops the program's clock (its timeout) until `resumeClock`: while the user decides on a call
   * (SPEC §12). Pauses nest: the clock runs again when every pause has been resumed.
   */
  pauseClock(): void {
    if (this.state !== 'running' || this.end) return
    if (this.pauses++ > 0) return
    this.pausedAt = performance.now()
    clearTimeout(this.timer)
  }

  resumeClock(): void {
    if (this.pauses === 0 || --this.pauses > 0) return
    if (this.state !== 'running' || this.end) return
    const now = performance.now()
    this.deadlineAt += now - this.pausedAt
    this.timer = setTimeout(() => this.finish({kind: 'timeout'}), Math.max(0, this.deadlineAt - now))
  }

  /** Answers a call or helper request; ignored once the run has ended. */
  reply(message: ResultMessage): void {
    if (this.state !== 'running' || this.end) return
    if (message.ok && message.value instanceof JsonText) {
      this.writeText(message.id, message.value.text)
      return
    }
    let line: string
    try {
      // `media` tells the child that the value's `_media` entries are the parser's, to become Media.
      line = JSON.stringify(message.ok && hasMedia(message.value) ? {...message, media: true} : message)
    } catch (error) {
      line = JSON.stringify({
        type: 'result',
        id: message.id,
        ok: false,
        error: `the result could not be passed to the program: ${(error as Error).message}`,
        kind: 'protocol',
      })
    }
    this.write(line)
  }

  /**
   * Stops (or resumes) reading the child's requests while the engine has enough of them waiting:
   * the child then blocks on its next write, and the server holds no more of them.
   */
  holdRequests(hold: boolean): void {
    this.setHold('calls', hold)
  }

  private setHold(reason: 'answers' | 'calls', hold: boolean): void {
    if (hold) this.holds.add(reason)
    else this.holds.delete(reason)
    if (this.holds.size > 0) this.channel?.pause()
    else this.channel?.resume()
  }

  /** Kills the child's process group now. Safe at any stage, any number of times. */
  kill(): void {
    this.killed = true
    if (this.state === 'running') this.finish({kind: 'crashed', reason: 'the child was killed'})
    else if (this.state !== 'ended') this.state = 'ended'
    this.killGroup()
    this.settleReady?.(new SandboxError('the Python child was stopped before it was ready'))
  }

  private async boot(): Promise<void> {
    const {options} = this
    try {
      this.scratchDir = await createScratchDir()
      if (this.killed) throw new SandboxError('the Python child was stopped before it was ready')
      const launch = await options.backend.launch({
        python: options.python,
        pythonArgs: ['-I', '-S', '-B', RUNNER_PATH],
        scratchDir: this.scratchDir,
        runtimePaths: [dirname(RUNNER_PATH)],
        env: childEnvironment(this.scratchDir),
        bounds: options.bounds,
      })
      if (this.killed) throw new SandboxError('the Python child was stopped before it was ready')
      this.tier = launch.tier
      const readyPromise = new Promise<void>((resolve, reject) => {
        this.settleReady = (error) => {
          this.settleReady = undefined
          if (error) reject(error)
          else resolve()
        }
      })
      this.spawnChild(launch.command, launch.args, launch.env)
      const start: StartMessage = {type: 'start', confine: launch.confine, limits: options.limits}
      this.write(JSON.stringify(start))
      const timer = setTimeout(() => {
        this.settleReady?.(
          new SandboxError(`the sandboxed Python did not start within ${options.startTimeoutMs / 1000}s`, {
            suggestion: 'check the machine load, or run `ptc-mcp doctor`',
          }),
        )
      }, options.startTimeoutMs)
      try {
        await readyPromise
      } finally {
        clearTimeout(timer)
      }
      if (this.killed) throw new SandboxError('the Python child was stopped before it was ready')
      this.state = 'ready'
    } catch (error) {
      this.state = 'ended'
      this.killGroup()
      if (!this.proc) this.dispose()
      throw error instanceof SandboxError
        ? error
        : new SandboxError(`the sandboxed Python could not start: ${(error as Error).message}`, {
            cause: error,
          })
    }
  }

  private spawnChild(command: string, args: string[], env: Record<string, string>): void {
    const proc = spawn(command, args, {
      cwd: this.scratchDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    })
    this.proc = proc
    proc.on('error', (error) => {
      this.startupFailure ??= error
      // A failed spawn emits no 'exit' and has no channel: treat it as both gone.
      if (proc.pid === undefined) {
        this.channelClosed = true
        this.onExit(null, null)
      }
    })
    proc.on('exit', (code, signal) => this.onExit(code, signal))
    for (const [name, stream] of [
      ['stdout', proc.stdout],
      ['stderr', proc.stderr],
    ] as const) {
      if (!stream) continue
      this.pipesOpen.add(name)
      if (name === 'stdout') {
        stream.on('data', (chunk: Buffer) => {
          this.stdout.write(chunk)
          if (this.end) this.maybeResolveRun()
        })
      } else {
        // During a run the runner points fd 2 at the stdout pipe: this one carries only what
        // was written before (interpreter or wrapper messages).
        stream.on('data', (chunk: Buffer) => this.capture.write(chunk))
      }
      stream.on('error', () => {})
      stream.on('close', () => this.onPipeClosed(name))
    }
    const channel = proc.stdio[3] as Socket | null
    if (!channel) throw new SandboxError('the Python child has no private channel')
    this.channel = channel
    channel.on('data', (chunk: Buffer) => this.onChannelData(chunk))
    channel.on('error', () => {})
    channel.on('close', () => this.onChannelClosed())
  }

  private write(line: string): void {
    this.enqueue(`${line}\n`)
  }

  /** Bytes (about) of answers the child has not taken yet: Node's socket buffer and the queue. */
  private get backlog(): number {
    return (this.channel?.writableLength ?? 0) + this.queuedChars
  }

  /**
   * Flow control (SPEC §15): answers pile up only as far as the bound. Over it, the child's next
   * requests wait unread until it has read the answers; a child that does not within
   * `answerStallMs` has stopped reading, and its run ends.
   */
  private checkBacklog(): void {
    const {channel} = this
    if (!channel || this.state !== 'running' || this.end) return
    if (this.stallTimer) {
      if (this.backlog > this.options.maxMessageBytes / 2) return
      clearTimeout(this.stallTimer)
      this.stallTimer = undefined
      this.setHold('answers', false)
      return
    }
    if (this.backlog <= this.options.maxMessageBytes) return
    this.setHold('answers', true)
    const waiting = this.backlog
    const stallMs = this.options.answerStallMs ?? ANSWER_STALL_MS
    this.stallTimer = setTimeout(() => {
      this.options.logger.warn(`a program stopped reading its channel (${waiting} bytes of answers waiting)`)
      this.finish({
        kind: 'crashed',
        reason:
          `the program stopped reading the answers to its requests (${formatMegabytes(waiting)} waiting for ${stallMs / 1000}s); ` +
          'await tool calls and helpers rather than blocking (long computation, time.sleep) while they run',
      })
    }, stallMs)
    channel.once('drain', () => this.onDrain())
  }

  private onDrain(): void {
    if (!this.stallTimer) return
    this.checkBacklog()
    // Still over half the bound: what is left goes out in slices, each ending in a drain.
    if (this.stallTimer) this.channel?.once('drain', () => this.onDrain())
  }

  /** A result that is a lone text item, as a header line and the raw text (runner.py `_TEXT_HEADER`). */
  private writeText(id: number, text: string): void {
    const header = `{"text_bytes":${Buffer.byteLength(text)},"type":"result","id":${id},"ok":true}\n`
    if (text.length <= TEXT_SLICE_CHARS) this.enqueue(`${header}${text}\n`)
    else {
      this.enqueue(header)
      this.enqueue({text, offset: 0})
      this.enqueue('\n')
    }
  }

  /**
   * Writes in order. A large text goes out a slice at a time, each when the child has taken the one
   * before, so the server never holds more than a slice of it as bytes; what comes after waits.
   */
  private enqueue(item: string | TextInFlight): void {
    if (this.writeQueue.length > 0) {
      this.writeQueue.push(item)
      this.queuedChars += typeof item === 'string' ? item.length : item.text.length - item.offset
    } else {
      const {channel} = this
      if (!channel || channel.destroyed || !channel.writable) return
      if (typeof item === 'string') channel.write(item)
      else {
        this.writeQueue.push(item)
        this.queuedChars += item.text.length - item.offset
        this.flushWrites()
      }
    }
    this.checkBacklog()
  }

  private flushWrites(): void {
    const {channel} = this
    const queue = this.writeQueue
    while (queue.length > 0) {
      if (!channel || channel.destroyed || !channel.writable) {
        queue.length = 0
        this.queuedChars = 0
        return
      }
      const item = queue[0]!
      if (typeof item === 'string') {
        queue.shift()
        this.queuedChars -= item.length
        channel.write(item)
        continue
      }
      const {text} = item
      let end = Math.min(text.length, item.offset + TEXT_SLICE_CHARS)
      // A surrogate pair stays in one slice: each slice is encoded to UTF-8 on its own.
      if (end < text.length && (text.codePointAt(end - 1) ?? 0) > 0xff_ff) end--
      const more = channel.write(text.slice(item.offset, end))
      this.queuedChars -= end - item.offset
      item.offset = end
      if (end === text.length) queue.shift()
      if (!more) {
        channel.once('drain', () => this.flushWrites())
        return
      }
    }
    this.checkBacklog()
  }

  private onChannelData(chunk: Buffer): void {
    try {
      this.splitter.push(chunk, (line) => {
        let message: ChildMessage
        try {
          message = parseChildMessage(line, this.options.maxOutputBytes)
        } catch (error) {
          if (!(error instanceof RefusedRequest) || this.state !== 'running') throw error
          if (this.end) return
          this.checkRequestId(error.id)
          this.reply({type: 'result', id: error.id, ok: false, error: error.message})
          return
        }
        this.onMessage(message, line.length)
      })
    } catch (error) {
      const reason =
        error instanceof ProtocolError ? error.message : `channel failure: ${(error as Error).message}`
      this.protocolFailure(reason)
    }
  }

  private protocolFailure(reason: string): void {
    this.options.logger.warn(`a program child broke the protocol: ${reason}`)
    this.channel?.destroy()
    if (this.state === 'running') this.finish({kind: 'crashed', reason: `protocol error: ${reason}`})
    else {
      this.settleReady?.(
        new SandboxError(`the sandboxed Python broke the protocol during startup: ${reason}`),
      )
      this.kill()
    }
  }

  private onMessage(message: ChildMessage, bytes: number): void {
    if (this.end) return
    if (this.state === 'running') {
      const handlers = this.handlers!
      switch (message.type) {
        case 'call': {
          this.checkRequestId(message.id)
          handlers.onCall(message.id, message.tool, message.args, bytes)
          return
        }
        case 'cancel': {
          handlers.onCancel(message.id)
          return
        }
        case 'done': {
          this.finish({
            kind: 'done',
            ok: message.ok,
            error: message.error,
            hasResult: message.hasResult,
            result: message.result,
          })
          return
        }
        case 'helper': {
          this.checkRequestId(message.id)
          handlers.onHelper(message.id, message.name, message.args)
          return
        }
        case 'show': {
          this.addShown(message.image)
          return
        }
        case 'file': {
          this.kept.begin(message.name)
          return
        }
        case 'file_data': {
          this.kept.append(message.data)
          return
        }
        case 'file_skipped': {
          this.kept.skipped(message.name, message.reason)
          return
        }
        default: {
          throw new ProtocolError(`unexpected "${message.type}" message while running`)
        }
      }
    }
    if (this.state === 'starting') {
      if (message.type === 'ready') {
        const report = message.confine as {tier?: unknown; bounds?: {scratch?: unknown}} | null | undefined
        if (report && typeof report === 'object' && typeof report.tier === 'string') this.tier = report.tier
        // Unless the sandbox made it a capped tmpfs, the scratch dir is on the host's disk.
        const scratch = report?.bounds?.scratch
        if (typeof scratch !== 'string' || !scratch.startsWith('tmpfs')) this.watchScratch()
        this.settleReady?.()
        return
      }
      if (message.type === 'startup_failed') {
        this.settleReady?.(
          new SandboxError(`the sandboxed Python could not start (${message.stage}): ${message.error}`, {
            suggestion: 'run `ptc-mcp doctor` to check the sandbox backend',
          }),
        )
        this.kill()
        return
      }
    }
    throw new ProtocolError(`unexpected "${message.type}" message`)
  }

  /** runner.py's show() refuses more; a child that sends more broke the protocol. */
  private addShown(image: ShownImage): void {
    if (this.shown.length >= MAX_SHOWN_IMAGES) {
      throw new ProtocolError(`show() called more than ${MAX_SHOWN_IMAGES} times`)
    }
    const total = this.shown.reduce((sum, shown) => sum + shown.bytes, image.bytes)
    if (total > MAX_SHOWN_BYTES)
      throw new ProtocolError(`show() images over ${MAX_SHOWN_BYTES} bytes in total`)
    this.shown.push(image)
  }

  private checkRequestId(id: number): void {
    if (id <= this.lastRequestId) {
      throw new ProtocolError(
        `the child reused request id ${id} (ids must increase: ${this.lastRequestId} came before)`,
      )
    }
    this.lastRequestId = id
  }

  private onChannelClosed(): void {
    this.channelClosed = true
    // Nothing more can arrive. The process is usually exiting (a wrapper such as bwrap a moment
    // after the interpreter): let it report its own exit status, and kill it if it does not (the
    // program closed the channel and went on).
    if (!this.exited) setTimeout(() => this.killGroup(), EXIT_GRACE_MS).unref()
    this.onProcessGone()
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return
    // Anything the program forked is still in the group: kill it before the pid can be reused.
    this.killGroup()
    this.exited = true
    this.exitDescription = describeExit(code, signal, this.startupFailure)
    this.closePipesSoon()
    this.onProcessGone()
    this.dispose()
  }

  /**
   * Acts once the process has exited AND the channel is closed: 'exit' can be seen before the
   * last channel data (its `done` or `startup_failed`) has been read.
   */
  private onProcessGone(): void {
    if (!this.exited || !this.channelClosed) return
    if (this.state === 'starting') {
      this.stdout.flush()
      const output = this.capture.text().trim()
      this.settleReady?.(
        new SandboxError(
          `the sandboxed Python exited during startup (${this.exitDescription})${output ? `: ${output}` : ''}`,
          {suggestion: 'run `ptc-mcp doctor` to check Python and the sandbox backend'},
        ),
      )
      this.state = 'ended'
    } else if (this.state === 'running') {
      this.finish({
        kind: 'crashed',
        reason: `the program's Python process ${this.exitDescription} before finishing`,
      })
    } else {
      this.state = 'ended'
    }
  }

  private onPipeClosed(name: string): void {
    this.pipesOpen.delete(name)
    this.maybeResolveRun()
  }

  private finish(end: ChildEnd): void {
    if (this.end || this.state !== 'running') return
    this.end = end
    this.endedAt = performance.now()
    clearTimeout(this.timer)
    clearTimeout(this.stallTimer)
    this.stallTimer = undefined
    // What the child still sends is read and dropped: its pipes and channel can close.
    this.holds.clear()
    this.channel?.resume()
    this.detachSignal?.()
    this.handlers = undefined
    if (end.kind === 'done') this.killTimer = setTimeout(() => this.killGroup(), DONE_KILL_DELAY_MS)
    else this.killGroup()
    this.closePipesSoon()
    this.maybeResolveRun()
  }

  /** Gives pipes held open by a process that escaped the group a bounded time to close. */
  private closePipesSoon(): void {
    if ((this.pipesOpen.size === 0 && this.channelClosed) || this.drainTimer) return
    this.drainTimer = setTimeout(() => {
      this.proc?.stdout?.destroy()
      this.proc?.stderr?.destroy()
      this.channel?.destroy()
    }, DRAIN_LIMIT_MS)
    this.drainTimer.unref()
  }

  private maybeResolveRun(): void {
    if (!this.end || !this.resolveRun) return
    // After `done`, the end marker proves the output complete; otherwise wait for EOF.
    const complete = this.end.kind === 'done' && this.stdout.endsWithMarker
    if (!complete && this.pipesOpen.size > 0) return
    this.stdout.flush()
    const resolve = this.resolveRun
    this.resolveRun = undefined
    this.state = 'ended'
    resolve({
      end: this.end,
      output: this.capture.text(),
      images: this.shown,
      kept: this.kept.finish(this.end.kind === 'done'),
      ...(this.capture.wholeOutputPath !== undefined && {outputFile: this.capture.wholeOutputPath}),
      elapsedMs: this.endedAt - this.startedAt,
    })
  }

  /** No capped tmpfs holds the scratch dir (SPEC §15's next best bound): the server watches it. */
  private watchScratch(): void {
    const {bounds} = this.options
    if (!this.scratchDir || !bounds) return
    this.stopWatching = watchScratch(
      this.scratchDir,
      {bytes: bounds.scratchBytes, files: bounds.scratchFiles},
      (reason) => {
        if (this.state === 'running') this.finish({kind: 'crashed', reason})
        this.killGroup()
      },
    )
  }

  private killGroup(): void {
    clearTimeout(this.killTimer)
    const pid = this.proc?.pid
    if (pid === undefined || this.exited) return
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }

  /** Removes the scratch directory (once the process is gone), then resolves `disposed`. */
  private dispose(): void {
    if (this.disposing) return
    this.disposing = true
    this.stopWatching?.()
    const dir = this.scratchDir
    if (!dir) {
      this.markDisposed()
      return
    }
    removeScratchDir(dir)
      .catch((error: Error) => this.options.logger.warn(`could not remove ${dir}: ${error.message}`))
      .finally(() => this.markDisposed())
  }
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`
}

function describeExit(
  code: number | null,
  signal: NodeJS.Signals | null,
  failure: Error | undefined,
): string {
  if (failure && code === null && signal === null) return `could not be started: ${failure.message}`
  if (signal === 'SIGXCPU') return 'hit the CPU time limit'
  if (signal) return `was killed by ${signal}`
  // A wrapper (bwrap) reports its child's death by signal N as exit code 128 + N.
  const wrapped = code !== null && code > 128 ? signalName(code - 128) : undefined
  return `exited with code ${String(code)}${wrapped ? ` (killed by ${wrapped}?)` : ''}`
}

function signalName(number: number): string | undefined {
  return Object.entries(constants.signals).find(([, value]) => value === number)?.[0]
}
