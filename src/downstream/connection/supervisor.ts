import type {CallToolResult, Tool} from '@modelcontextprotocol/client'

import type {ServerConfig, TransportKind} from '../../config/schema.js'
import type {Logger} from '../../shared/log.js'
import type {NameClash} from '../../shared/naming.js'
import type {CallOptions} from '../calls/call-error.js'
import type {ServerTransport} from '../transport/server-transport.js'
import type {ConnectFailure} from './failure-cause.js'
import type {SupervisorOptions} from './supervisor-options.js'

import {createOAuthSession, type OAuthSession} from '../../oauth/session.js'
import {TokenStore} from '../../oauth/store.js'
import {DEFAULT_CONNECT_TIMEOUT_SECONDS} from '../../shared/limits.js'
import {counted} from '../../shared/plural.js'
import {formatSeconds} from '../../shared/seconds.js'
import {notConnectedMessage} from '../tools/tool-lookup.js'
import {transportFor} from '../transport/transports.js'
import {ToolError, type ToolInfo} from '../types.js'
import {type BackoffOptions, DEFAULT_BACKOFF, retryDelay, streakAfterLoss} from './backoff.js'
import {ServerConnection, type ServerWords} from './connection.js'
import {describeError} from './error-text.js'
import {redactFailure} from './failure.js'
import {SignInWait} from './sign-in-wait.js'
import {describeClash, toToolInfos} from './tool-listing.js'

export interface SupervisorStatus {
  name: string
  transport: TransportKind
  connected: boolean
  /** Still on the first connection attempt: never connected, never failed. */
  connecting: boolean
  lastError: null | string
  attempts: number
  since: string
  /** Name clashes among this server's tools, as warnings. */
  warnings: string[]
}

/**
 * - `idle`: not started. `connecting`: an attempt is under way. `connected`: the attempt's
 *   connection is open. `waiting`: for the retry timer, or for a sign-in. `closed`: for good.
 */
type State = 'closed' | 'connected' | 'connecting' | 'idle' | 'waiting'

/**
 * Keeps one downstream server connected (SPEC §4): connects (bounded), lists every tool, then
 * watches the connection; after a failure or a loss it retries with exponential backoff, forever,
 * on its own timers so that no other server waits for it. Only a lost connection leads to a
 * reconnect: tool errors, exceptions inside the server and bad data never do.
 */
export class ServerSupervisor {
  readonly name: string
  readonly config: ServerConfig
  /** OAuth for a remote server that may sign in (SPEC §13); undefined for stdio and header-auth servers. */
  readonly oauth: OAuthSession | undefined
  /** Settles when the first attempt has succeeded or failed (or the supervisor was closed). */
  readonly firstAttempt: Promise<void>

  private readonly log: Logger
  private readonly connectTimeoutMs: number
  private readonly backoff: BackoffOptions
  private readonly options: SupervisorOptions
  private readonly transport: ServerTransport
  private readonly redact: (text: string) => string
  private state: State = 'idle'
  /** The current attempt's connection; a callback of any other one is stale and ignored. */
  private connection: ServerConnection | undefined
  /** For a server that needs sign-in: no timed retries, new tokens in the store start the next attempt. */
  private readonly signIn: SignInWait | undefined
  private tools: ToolInfo[] = []
  /** What the server said of itself when it last connected (for the catalogue, SPEC §5). */
  private serverWords: ServerWords = {}
  private clashes: NameClash[] = []
  private lastError: null | string = null
  /** Why the last attempt failed, as a kind (null while connected or before the first failure). */
  private failure: ConnectFailure | null = null
  private attempts = 0
  private since = new Date()
  private connectedAt = 0
  /** Consecutive failures, for the backoff exponent; survives connections that do not last. */
  private failureStreak = 0
  private retryTimer: NodeJS.Timeout | undefined
  private readonly closing = new Set<Promise<void>>()
  private readonly listeners = new Set<() => void>()
  private firstAttemptDone = false
  private readonly resolveFirstAttempt: () => void

  constructor(config: ServerConfig, options: SupervisorOptions) {
    this.name = config.name
    this.config = config
    this.options = options
    this.log = options.logger.child(config.name)
    this.connectTimeoutMs =
      config.connect_timeout_seconds === undefined
        ? (options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_SECONDS * 1000)
        : config.connect_timeout_seconds * 1000
    this.backoff = {...DEFAULT_BACKOFF, ...options.backoff}
    this.transport = transportFor(config)
    this.redact = options.redact ?? ((text) => text)
    this.oauth = createOAuthSession(
      config,
      options.tokenStore ?? new TokenStore(),
      this.log,
      options.addSecrets,
    )
    this.signIn = this.oauth && new SignInWait(this.oauth, () => this.signedIn())
    let resolve!: () => void
    this.firstAttempt = new Promise<void>((settle) => {
      resolve = settle
    })
    this.resolveFirstAttempt = resolve
  }

  /** Starts connecting in the background. */
  start(): void {
    if (this.state !== 'idle') return
    this.attempt()
  }

  get connected(): boolean {
    return this.state === 'connected'
  }

  /** This server's tools while connected (namespaced, clashes removed); `[]` otherwise. */
  listTools(): readonly ToolInfo[] {
    return this.state === 'connected' ? this.tools : []
  }

  /** What the server said of itself when it last connected: its instructions and title. */
  get words(): ServerWords {
    return this.serverWords
  }

  /** Why the server is not connected: its last error, or "connecting" on the first attempt. */
  get reason(): string {
    if (this.state === 'closed') return 'closed'
    return this.lastError ?? 'connecting'
  }

  /** Why the last connection attempt failed, as a kind; null while connected or before any failure. */
  get lastFailure(): ConnectFailure | null {
    return this.failure
  }

  status(): SupervisorStatus {
    return {
      name: this.name,
      transport: this.config.transport,
      connected: this.connected,
      connecting: !this.firstAttemptDone,
      lastError: this.lastError,
      attempts: this.attempts,
      since: this.since.toISOString(),
      warnings: this.clashes.map((clash) => describeClash(clash)),
    }
  }

  /**
   * Whether a call should wait for this server: it is on its first attempt, or reconnecting after
   * it lost a working connection (not after failed attempts, nor while it waits for a sign-in).
   */
  get starting(): boolean {
    if (!this.firstAttemptDone) return this.state !== 'closed'
    if (this.failure !== null) return false
    // Waiting with no retry timer: for a sign-in, which no wait of ours brings.
    return this.state === 'connecting' || (this.state === 'waiting' && this.retryTimer !== undefined)
  }

  /** How long a start may take: one connection attempt (servers[].connect_timeout_seconds). */
  get startTimeoutMs(): number {
    return this.connectTimeoutMs
  }

  /** The pid of the current stdio server process, or null (remote server, or not running). */
  get pid(): null | number {
    return this.connection?.pid ?? null
  }

  /** Called when the tools or the connection state change. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Calls a tool by its own (not namespaced) name. Throws `ToolError` for a timeout, a cancellation,
   * a protocol error, bad data or a lost connection; returns `isError` results as they are.
   */
  callTool(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const {connection} = this
    if (this.state !== 'connected' || !connection)
      return Promise.reject(new ToolError(notConnectedMessage(this.name, this.reason), {kind: 'unavailable'}))
    if (options.signal?.aborted)
      return Promise.reject(new ToolError('tool call cancelled', {cause: options.signal.reason}))
    // Not async: the connection's promise is the call's, without one more to settle on the way.
    return connection.callTool(tool, args, options)
  }

  /** Stops retrying and closes the connection; a stdio server is shut down in steps (stdin, SIGTERM, SIGKILL). */
  async close(): Promise<void> {
    if (this.state === 'closed') {
      await Promise.allSettled(this.closing)
      return
    }
    const wasConnected = this.state === 'connected'
    this.state = 'closed'
    this.stopRetrying()
    this.signIn?.stop()
    this.markFirstAttemptDone()
    this.tools = []
    this.disconnect()
    if (wasConnected) this.emit()
    this.listeners.clear()
    await Promise.allSettled(this.closing)
  }

  /** Runs one connection attempt in the background; connect() reports its own failures. */
  private attempt(): void {
    this.connect().catch((error: unknown) => {
      this.log.error(`connection attempt failed unexpectedly: ${describeError(error)}`)
    })
  }

  private async connect(): Promise<void> {
    this.signIn?.cancel()
    this.state = 'connecting'
    this.attempts++
    this.log.debug(`connecting (attempt ${this.attempts})`)
    const connection: ServerConnection = new ServerConnection(
      {
        config: this.config,
        log: this.log,
        connectTimeoutMs: this.connectTimeoutMs,
        maxMessageBytes: this.options.maxMessageBytes,
        upstream: this.options.upstream,
        oauth: this.oauth,
        // The server's own transport makes the attempt, so its failure is judged with what it saw.
        createTransport: this.options.createTransport ?? ((_, options) => this.transport.create(options)),
        transport: this.transport,
        lastError: () => this.lastError,
      },
      {
        lost: (reason, needsSignIn) => this.lose(connection, reason, needsSignIn),
        toolsChanged: (tools) => this.toolsChanged(connection, tools),
      },
    )
    this.connection = connection
    const opened = await connection.open()
    if (connection !== this.connection) return
    if (!opened.ok) {
      this.fail(opened.failure)
      return
    }
    this.applyTools(opened.tools)
    this.serverWords = opened.words
    this.state = 'connected'
    this.connectedAt = Date.now()
    this.attempts = 0
    this.failure = null
    this.since = new Date()
    this.markFirstAttemptDone()
    this.log.info(`connected, ${counted(this.tools.length, 'tool')}`)
    this.emit()
    connection.refreshIfChanged()
  }

  private applyTools(tools: Tool[]): void {
    const {tools: infos, clashes} = toToolInfos(this.name, tools)
    for (const clash of clashes) this.log.warn(describeClash(clash))
    this.clashes = clashes
    this.tools = infos
  }

  private toolsChanged(connection: ServerConnection, tools: Tool[]): void {
    if (connection !== this.connection || this.state !== 'connected') return
    this.applyTools(tools)
    this.log.info(`tool list changed, ${counted(this.tools.length, 'tool')}`)
    this.emit()
  }

  /** The connection was lost: drop the tools, report, and reconnect after a backoff (or after a sign-in). */
  private lose(connection: ServerConnection, reason: string, needsSignIn: boolean): void {
    if (connection !== this.connection || this.state !== 'connected') return
    this.failureStreak = streakAfterLoss(this.failureStreak, Date.now() - this.connectedAt, this.backoff)
    this.state = 'waiting'
    this.lastError = this.redact(reason)
    this.since = new Date()
    this.tools = []
    this.disconnect()
    if (needsSignIn) {
      this.waitForSignIn()
      this.log.warn(this.lastError)
    } else {
      const delay = this.scheduleRetry()
      this.log.warn(`${this.lastError}; reconnecting in ${formatSeconds(delay)}`)
    }
    this.emit()
  }

  /** A connection attempt failed. */
  private fail(unredacted: ConnectFailure): void {
    const failure = redactFailure(unredacted, this.redact)
    const reason = failure.message
    const repeated = reason === this.lastError
    this.failure = failure
    this.state = 'waiting'
    this.lastError = reason
    this.disconnect()
    this.markFirstAttemptDone()
    if (failure.kind === 'needs_sign_in') {
      this.waitForSignIn()
      if (repeated) this.log.debug(reason)
      else this.log.warn(reason)
      this.emit()
      return
    }
    const delay = this.scheduleRetry()
    // A server that stays down would otherwise repeat the same warning every minute, forever.
    const message = `cannot connect: ${reason}; retrying in ${formatSeconds(delay)}`
    if (repeated) this.log.debug(message)
    else this.log.warn(message)
    this.emit()
  }

  private waitForSignIn(): void {
    if (!this.signIn) return
    this.stopRetrying()
    this.signIn.start()
  }

  /** New tokens appeared while waiting for a sign-in: connect, unless that is no longer wanted. */
  private signedIn(): boolean {
    if (this.state !== 'waiting') return false
    this.log.info('new sign-in found; connecting')
    this.attempt()
    return true
  }

  private scheduleRetry(): number {
    const delay = retryDelay(this.failureStreak, this.backoff)
    this.failureStreak++
    clearTimeout(this.retryTimer)
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      if (this.state === 'waiting') this.attempt()
    }, delay)
    // Retrying must not keep a finished CLI command alive; `serve` is kept alive by its own stdin.
    this.retryTimer.unref()
    return delay
  }

  private stopRetrying(): void {
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    this.signIn?.cancel()
  }

  /** Closes the current connection without waiting; close() waits for all of them. */
  private disconnect(): void {
    const {connection} = this
    this.connection = undefined
    if (!connection) return
    const closing = connection.close()
    this.closing.add(closing)
    closing.finally(() => this.closing.delete(closing)).catch(() => {})
  }

  private markFirstAttemptDone(): void {
    if (this.firstAttemptDone) return
    this.firstAttemptDone = true
    this.resolveFirstAttempt()
  }

  private emit(): void {
    for (const listener of this.listeners) {
      try {
        listener()
      } catch (error) {
        this.log.error(`change listener failed: ${describeError(error)}`)
      }
    }
  }
}
