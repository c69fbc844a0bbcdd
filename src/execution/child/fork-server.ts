import {type ChildProcess, spawn} from 'node:child_process'
import {createServer, type Server, type Socket} from 'node:net'
import {join} from 'node:path'

import type {PythonInfo, SandboxBackend} from '../../sandbox/backend.js'
import type {Logger} from '../../shared/log.js'
import type {StartMessage} from '../protocol/protocol.js'

import {createForkServerDir, ensureScratchRoot, removeScratchDir} from '../../sandbox/scratch.js'
import {SandboxError} from '../../shared/errors.js'
import {
  CHILD_START_TIMEOUT_MS,
  MAX_FORK_HELLO_BYTES,
  MAX_FORK_SERVER_LINE_BYTES,
  MAX_FORK_SERVER_STDERR_CHARS,
} from '../../shared/limits.js'
import {LineFramer} from '../../shared/line-framing.js'
import {randomHex} from '../../shared/random-hex.js'
import {formatSeconds} from '../../shared/seconds.js'
import {signalName} from './signal-name.js'

/** Longest unix socket path (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void

/**
 * A child made by the fork server: its channel and its output (fd 1 and fd 2) are connections it
 * made back to this process before it confined itself. Its exit is reported once, when the fork
 * server has reaped it (or is gone, and the kernel with it killed every child).
 */
export class ForkedChild {
  exited = false
  private exitCode: number | null = null
  private exitSignal: NodeJS.Signals | null = null
  private listener: ExitListener | undefined

  constructor(
    readonly channel: Socket,
    readonly output: Socket,
    private readonly killChild: () => void,
  ) {}

  /** Kills the child (it can make no process of its own). Safe any number of times. */
  kill(): void {
    if (!this.exited) this.killChild()
  }

  onExit(listener: ExitListener): void {
    this.listener = listener
    if (this.exited) listener(this.exitCode, this.exitSignal)
  }

  /** Called by the fork server. */
  exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return
    this.exited = true
    this.exitCode = code
    this.exitSignal = signal
    this.listener?.(code, signal)
  }
}

/** The fork server cannot run here: children are spawned one by one instead. */
export class ForkServerUnavailable extends SandboxError {}

/**
 * What clone answers when the host gives no new namespaces: ENOSPC (max_user_namespaces reached or
 * 0), EPERM (not allowed: a container, a hardened sysctl), EUSERS, EINVAL (Linux errno values).
 */
const NO_NAMESPACES = new Set([1, 22, 28, 87])

interface PendingFork {
  id: number
  channel?: Socket
  output?: Socket
  resolve(child: ForkedChild): void
  reject(error: Error): void
  timer: NodeJS.Timeout
}

export interface ForkServerOptions {
  python: PythonInfo
  backend: SandboxBackend
  runnerPath: string
  runtimePaths: string[]
  logger: Logger
}

/**
 * The parent side of the backend's fork server (zygote.py): starts it on first use, asks it for
 * children, pairs the connections they make back with their requests (by a token each), and
 * relays kills and exits. A child's pid is the fork server's business: it kills only children it
 * has not reaped, so a reused pid is never hit.
 */
export class ForkServer {
  private process: ChildProcess | undefined
  private server: Server | undefined
  private socketDir: string | undefined
  private starting: Promise<void> | undefined
  private nextId = 0
  private readonly pending = new Map<string, PendingFork>()
  private readonly children = new Map<number, ForkedChild>()
  private readonly tokens = new Map<number, string>()
  private closed = false
  /** Requests not yet written (`send`), and the write that takes them. */
  private outbox = ''
  private flushing: NodeJS.Immediate | undefined
  private everStarted = false
  private unavailable: ForkServerUnavailable | undefined

  constructor(private readonly options: ForkServerOptions) {}

  /**
   * A new child, connected, that confines itself as `start` says and then reports `ready` on its
   * channel. Rejects with SandboxError.
   */
  async fork(env: Record<string, string>, start: StartMessage): Promise<ForkedChild> {
    if (this.closed) throw new SandboxError('the fork server is closed')
    if (this.unavailable) throw this.unavailable
    this.starting ??= this.start()
    try {
      await this.starting
    } catch (error) {
      // Not started at all (an old kernel, no namespaces): spawn children instead, from now on.
      if (!this.unavailable && !this.everStarted) {
        this.unavailable = new ForkServerUnavailable((error as Error).message, {cause: error})
        this.options.logger.warn(
          `no fork server (${(error as Error).message}); children are started one by one`,
        )
        throw this.unavailable
      }
      throw error
    }
    const proc = this.process
    if (!proc?.stdio[3]) throw new SandboxError('the fork server is not running')
    const id = ++this.nextId
    const token = randomHex(16)
    return new Promise<ForkedChild>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.failPending(
          token,
          new SandboxError(`a forked child did not connect within ${formatSeconds(CHILD_START_TIMEOUT_MS)}`),
        )
        this.send({type: 'kill', id})
      }, CHILD_START_TIMEOUT_MS)
      this.pending.set(token, {id, resolve, reject, timer})
      this.tokens.set(id, token)
      this.send({type: 'fork', id, token, env, start})
    })
  }

  /** Kills the fork server, and with it every child it made; removes its socket. */
  async close(): Promise<void> {
    this.closed = true
    await this.starting?.catch(() => {})
    this.stop(new SandboxError('the fork server was closed'))
  }

  /**
   * Queues a request; what one turn of the event loop asks (a finished child's kill and its
   * replacement's fork, when the answer has gone out) goes out in one write.
   */
  private send(message: Record<string, unknown>): void {
    this.outbox += `${JSON.stringify(message)}\n`
    this.flushing ??= setImmediate(() => {
      const text = this.outbox
      this.outbox = ''
      this.flushing = undefined
      const channel = this.process?.stdio[3] as Socket | null | undefined
      if (channel && !channel.destroyed) channel.write(text)
    })
  }

  private async start(): Promise<void> {
    const {options} = this
    const socketDir = await createForkServerDir()
    this.socketDir = socketDir
    const socketPath = join(socketDir, 's')
    try {
      if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
        throw new SandboxError(`the fork server's socket path is too long (${socketPath})`)
      }
      const server = createServer((socket) => this.onConnection(socket))
      this.server = server
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(socketPath, () => resolve())
      })
      server.on('error', (error) => options.logger.warn(`fork server socket: ${error.message}`))
      const launch = await options.backend.forkServer!({
        python: options.python,
        runnerPath: options.runnerPath,
        runtimePaths: options.runtimePaths,
        socketPath,
        socketDir,
        scratchRoot: await ensureScratchRoot(),
      })
      const proc = spawn(launch.command, launch.args, {
        cwd: socketDir,
        env: launch.env,
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
        detached: true,
      })
      this.process = proc
      await this.waitReady(proc)
      this.everStarted = true
    } catch (error) {
      this.stop(error as Error)
      throw error instanceof SandboxError
        ? error
        : new SandboxError(`the fork server could not start: ${(error as Error).message}`, {cause: error})
    }
  }

  private waitReady(proc: ChildProcess): Promise<void> {
    const {logger} = this.options
    let stderr = ''
    proc.stderr?.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < MAX_FORK_SERVER_STDERR_CHARS) stderr += text
      for (const line of text.split('\n')) if (line.trim()) logger.debug(`fork server: ${line}`)
    })
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new SandboxError('the fork server did not load in time')),
        CHILD_START_TIMEOUT_MS,
      )
      const framer = LineFramer.text(MAX_FORK_SERVER_LINE_BYTES, 'fail')
      const channel = proc.stdio[3] as Socket
      channel.on('error', () => {})
      channel.on('data', (chunk: Buffer) => {
        try {
          framer.push(chunk, (framed) => {
            if (framed.kind !== 'line') return
            const message = JSON.parse(framed.line) as {
              type?: string
              id?: number
              code?: number | null
              signal?: number | null
              error?: string
              errno?: number
            }
            if (message.type === 'ready') {
              clearTimeout(timer)
              resolve()
            } else this.onMessage(message)
          })
        } catch (error) {
          logger.warn(`the fork server broke its protocol: ${(error as Error).message}`)
          if (this.process === proc) this.stop(new SandboxError('the fork server broke its protocol'))
        }
      })
      proc.on('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
      proc.on('exit', (code, signal) => {
        clearTimeout(timer)
        const why = `the fork server exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`
        reject(new SandboxError(why))
        // Stopped already (a protocol error, close): its successor is not this one's to stop.
        if (this.process !== proc) return
        if (!this.closed) logger.warn(why)
        this.stop(new SandboxError(why))
      })
    })
  }

  private onMessage(message: {
    type?: string
    id?: number
    code?: number | null
    signal?: number | null
    error?: string
    errno?: number
  }): void {
    const id = message.id ?? -1
    const token = this.tokens.get(id)
    if (message.type === 'fork_failed') {
      this.tokens.delete(id)
      if (NO_NAMESPACES.has(message.errno ?? 0)) {
        // No namespaces for its children (user namespaces off, capped or exhausted, SPEC §15):
        // children are started one by one from now on, each confining itself as it can.
        this.unavailable ??= new ForkServerUnavailable(`the fork server could not fork: ${message.error}`)
        this.options.logger.warn(
          `no fork server (${message.error}: no namespaces for its children); children are started one by one`,
        )
        // Its children already running keep running; it makes no more.
        if (token) this.failPending(token, this.unavailable)
        return
      }
      if (token) this.failPending(token, new SandboxError(`the fork server could not fork: ${message.error}`))
      return
    }
    if (message.type !== 'exit') return
    this.tokens.delete(id)
    if (token && this.pending.has(token)) {
      this.failPending(
        token,
        new SandboxError(
          `a forked child ${describe(message.code ?? null, message.signal ?? null)} before it connected`,
        ),
      )
    }
    const child = this.children.get(id)
    const signal = typeof message.signal === 'number' ? signalName(message.signal) : undefined
    if (child) this.exitChild(id, child, message.code ?? null, signal ?? null)
  }

  private exitChild(
    id: number,
    child: ForkedChild,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): void {
    this.children.delete(id)
    child.exit(code, signal)
  }

  private onConnection(socket: Socket): void {
    socket.on('error', () => {})
    let hello = Buffer.alloc(0)
    const timer = setTimeout(() => socket.destroy(), CHILD_START_TIMEOUT_MS)
    const onData = (chunk: Buffer): void => {
      hello = Buffer.concat([hello, chunk])
      const newline = hello.indexOf(10)
      if (newline === -1) {
        if (hello.length > MAX_FORK_HELLO_BYTES) socket.destroy()
        return
      }
      clearTimeout(timer)
      socket.off('data', onData)
      socket.pause()
      const [token = '', kind] = hello.subarray(0, newline).toString('latin1').split(' ')
      const rest = hello.subarray(newline + 1)
      const fork = this.pending.get(token)
      if (!fork || (kind !== 'channel' && kind !== 'output') || fork[kind]) {
        socket.destroy()
        return
      }
      if (rest.length > 0) socket.unshift(rest)
      fork[kind] = socket
      if (fork.channel && fork.output) this.connected(token, fork)
    }
    socket.on('data', onData)
  }

  private connected(token: string, fork: PendingFork): void {
    clearTimeout(fork.timer)
    this.pending.delete(token)
    const {id} = fork
    const child = new ForkedChild(fork.channel!, fork.output!, () => this.send({type: 'kill', id}))
    this.children.set(id, child)
    fork.resolve(child)
  }

  private failPending(token: string, error: Error): void {
    const fork = this.pending.get(token)
    if (!fork) return
    this.pending.delete(token)
    clearTimeout(fork.timer)
    fork.channel?.destroy()
    fork.output?.destroy()
    fork.reject(error)
  }

  /** The fork server is gone (or must go): so is every child it made (PR_SET_PDEATHSIG). */
  private stop(error: Error): void {
    const proc = this.process
    this.process = undefined
    // Requests for this one are not for its successor.
    this.outbox = ''
    if (proc?.pid !== undefined && proc.exitCode === null && proc.signalCode === null) {
      try {
        process.kill(-proc.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    for (const token of this.pending.keys()) this.failPending(token, error)
    for (const [id, child] of this.children) this.exitChild(id, child, null, 'SIGKILL')
    this.tokens.clear()
    this.server?.close()
    this.server = undefined
    const dir = this.socketDir
    this.socketDir = undefined
    if (dir) removeScratchDir(dir).catch(() => {})
    // The next fork starts a new one.
    if (!this.closed) this.starting = undefined
  }
}

function describe(code: number | null, signal: number | null): string {
  return signal === null
    ? `exited with code ${String(code)}`
    : `was killed by ${signalName(signal) ?? signal}`
}
