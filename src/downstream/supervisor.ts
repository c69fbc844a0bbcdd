import {
  type CallToolResult,
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client'
import {createRequire} from 'node:module'

import type {ServerConfig} from '../config/schema.js'
import type {Logger} from '../log.js'
import type {UpstreamClient} from './upstream.js'

import {signInMessage} from '../oauth/errors.js'
import {createOAuthSession, type OAuthSession} from '../oauth/session.js'
import {TokenStore} from '../oauth/store.js'
import {forwardedCapabilities, installForwarding} from './client-requests.js'
import {type ConnectFailure, remoteFailureKind} from './connect-failure.js'
import {dedupeTools, type NameClash} from './naming.js'
import {StderrRecord} from './stderr-record.js'
import {notConnectedMessage} from './tool-lookup.js'
import {createTransport, oversizedMessageBytes, transportPid} from './transports.js'
import {ResultTooLargeError, ToolError, type ToolHints, type ToolInfo, type TransportKind} from './types.js'

export interface BackoffOptions {
  /** First delay after a failure. Default 1000 ms. */
  initialMs: number
  /** The delay doubles up to this. Default 60000 ms. */
  maxMs: number
}

export interface SupervisorOptions {
  logger: Logger
  /** Bound on one connection attempt (connect, then the first tool listing). Default 30000 ms. */
  connectTimeoutMs?: number
  /** Retry delays after a failed attempt or a lost connection. Default 1 s doubling to 60 s, with jitter. */
  backoff?: Partial<BackoffOptions>
  /** Largest single message accepted from a stdio server. Default: the SDK's (10 MB). */
  maxMessageBytes?: number
  /** ptc-mcp's own client, which the server's elicitation and sampling requests go to. Default: none (refused). */
  upstream?: UpstreamClient
  /**
   * Takes the config's secrets out of a reason before it is kept as `lastError` (which reaches
   * server_status(), list_callable_tools and every ToolError about this server). Default: none.
   * The logger given is expected to redact its lines already.
   */
  redact?: (text: string) => string
  /** Where OAuth tokens are kept (SPEC §13). Default: `$XDG_STATE_HOME/ptc-mcp/oauth`. */
  tokenStore?: TokenStore
  /** Told every OAuth token value as it is read or obtained, so `redact` and the logger take it out too. */
  addSecrets?: (values: string[]) => void
}

export interface SupervisorStatus {
  name: string
  transport: TransportKind
  connected: boolean
  /** Still on the first connection attempt: never connected, never failed. */
  connecting: boolean
  lastError: string | null
  attempts: number
  since: string
  /** Name clashes among this server's tools, as warnings. */
  warnings: string[]
}

export interface CallOptions {
  signal?: AbortSignal
  timeoutMs: number
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000
export const DEFAULT_BACKOFF: BackoffOptions = {initialMs: 1000, maxMs: 60_000}

/** A server that sends `nextCursor` forever is cut off here rather than listed forever. */
const MAX_TOOL_PAGES = 1000
/** Bound on the ping that checks whether a remote server is still there after a transport error. */
const VERIFY_TIMEOUT_MS = 5000
/** A stderr line older than this when a connection drops is not taken as the reason. */
const STDERR_RECENT_MS = 10_000

const CLIENT_INFO = {name: 'ptc-mcp', version: packageVersion()}

type State = 'idle' | 'connecting' | 'connected' | 'waiting' | 'closed'

/**
 * Keeps one downstream server connected (SPEC §4): connects (bounded), lists every tool, then
 * watches the connection; after a failure or a loss it retries with exponential backoff, forever,
 * on its own timers so that no other server waits for it. Only a lost connection leads to a
 * reconnect: tool errors, exceptions inside the server and bad data never do.
 */
export class ServerSupervisor {
  readonly name: string
  readonly config: ServerConfig

  private readonly log: Logger
  private readonly connectTimeoutMs: number
  private readonly backoff: BackoffOptions

  private readonly maxMessageBytes: number | undefined
  private readonly upstream: UpstreamClient | undefined
  private readonly redact: (text: string) => string
  /** OAuth for a remote server that may sign in (SPEC §13); undefined for stdio and header-auth servers. */
  readonly oauth: OAuthSession | undefined
  /** Waiting for new tokens (needs sign-in): no timed retries, the token store's watcher starts the next attempt. */
  private awaitingSignIn = false
  private stopWatching: (() => void) | undefined
  private state: State = 'idle'
  /** Bumped by every attempt, loss and close: callbacks of an older connection see a stale value and stop. */
  private generation = 0
  private client: Client | undefined
  private transport: Transport | undefined
  private tools: ToolInfo[] = []
  private clashes: NameClash[] = []
  private lastError: string | null = null
  private attempts = 0
  private since = new Date()
  private connectedAt = 0
  /** Consecutive failures, for the backoff exponent; survives connections that do not last. */
  private failureStreak = 0
  private retryTimer: NodeJS.Timeout | undefined
  private refreshing: Promise<void> | undefined
  private refreshAgain = false
  private verifying = false
  private readonly stderr = new StderrRecord()
  /** Why the last attempt failed, as a kind (null while connected or before the first failure). */
  private failure: ConnectFailure | null = null
  /** The server sent our own initialize request back: whatever it is, it does not speak MCP. */
  private echoedInitialize = false
  private readonly closing = new Set<Promise<void>>()
  private readonly listeners = new Set<() => void>()
  private firstAttemptDone = false
  private readonly resolveFirstAttempt: () => void
  /** Settles when the first attempt has succeeded or failed (or the supervisor was closed). */
  readonly firstAttempt: Promise<void>

  constructor(config: ServerConfig, options: SupervisorOptions) {
    this.name = config.name
    this.config = config
    this.log = options.logger.child(config.name)
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    this.backoff = {...DEFAULT_BACKOFF, ...options.backoff}
    this.maxMessageBytes = options.maxMessageBytes
    this.upstream = options.upstream
    this.redact = options.redact ?? ((text) => text)
    this.oauth = createOAuthSession(
      config,
      options.tokenStore ?? new TokenStore(),
      this.log,
      options.addSecrets,
    )
    const first = deferred()
    this.firstAttempt = first.promise
    this.resolveFirstAttempt = first.resolve
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

  /** Why the server is not connected: its last error, or "connecting" on the first attempt. */
  get reason(): string {
    if (this.state === 'closed') return 'closed'
    return this.lastError ?? 'connecting'
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

  /** The pid of the current stdio server process, or null (remote server, or not running). */
  get pid(): number | null {
    return this.transport ? transportPid(this.transport) : null
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
  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const {client} = this
    if (this.state !== 'connected' || !client)
      throw new ToolError(this.notConnectedMessage(), {kind: 'unavailable'})
    if (options.signal?.aborted) throw new ToolError('tool call cancelled', {cause: options.signal.reason})
    const {generation} = this
    try {
      return await client.callTool(
        {name: tool, arguments: args},
        {signal: options.signal, timeout: options.timeoutMs},
      )
    } catch (error) {
      throw this.callError(error, generation, options)
    }
  }

  /** Stops retrying and closes the connection; a stdio server is shut down in steps (stdin, SIGTERM, SIGKILL). */
  async close(): Promise<void> {
    if (this.state === 'closed') {
      await Promise.allSettled(this.closing)
      return
    }
    const wasConnected = this.state === 'connected'
    this.state = 'closed'
    this.generation++
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    this.stopWatching?.()
    this.stopWatching = undefined
    this.awaitingSignIn = false
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
    const generation = ++this.generation
    this.awaitingSignIn = false
    this.state = 'connecting'
    this.attempts++
    this.refreshAgain = false
    this.stderr.clear()
    this.echoedInitialize = false
    this.log.debug(`connecting (attempt ${this.attempts})`)

    let transport: Transport
    try {
      transport = this.createTransport()
    } catch (error) {
      this.fail(describeError(error), {kind: 'other'})
      return
    }
    const capabilities = forwardedCapabilities(this.upstream)
    const client = new Client(CLIENT_INFO, {capabilities, listMaxPages: MAX_TOOL_PAGES})
    this.client = client
    this.transport = transport
    this.installHandlers(client, generation)
    installForwarding(client, this.name, this.upstream, capabilities)

    const deadline = new AbortController()
    const seconds = formatSeconds(this.connectTimeoutMs)
    const timer = setTimeout(
      () => deadline.abort(new Error(`no answer within ${seconds} (connect timeout)`)),
      this.connectTimeoutMs,
    )
    try {
      await untilAborted(
        client.connect(transport, {signal: deadline.signal, timeout: this.connectTimeoutMs}),
        deadline.signal,
      )
      const tools = await untilAborted(this.fetchTools(client, deadline.signal), deadline.signal)
      if (generation !== this.generation) return
      this.applyTools(tools)
      this.state = 'connected'
      this.connectedAt = Date.now()
      this.attempts = 0
      this.failure = null
      this.since = new Date()
      this.markFirstAttemptDone()
      this.log.info(`connected, ${this.tools.length} tools`)
      this.emit()
      if (this.refreshAgain) this.refreshTools(generation)
    } catch (error) {
      if (generation !== this.generation) return
      const {reason, failure} = this.describeFailure(error, deadline.signal)
      this.fail(reason, failure)
    } finally {
      clearTimeout(timer)
    }
  }

  private createTransport(): Transport {
    return createTransport(this.config, {
      logger: this.log,
      maxMessageBytes: this.maxMessageBytes,
      authProvider: this.oauth,
      onStderrLine: (line) => this.stderr.add(line),
    })
  }

  private installHandlers(client: Client, generation: number): void {
    // Requests a server makes of its client get an immediate, clear refusal unless they are forwarded
    // (installForwarding): without a handler the SDK would answer a bare "Method not found".
    client.fallbackRequestHandler = async (request) => {
      if (request.method === 'initialize') this.echoedInitialize = true
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, refusalMessage(request.method))
    }
    client.setNotificationHandler('notifications/tools/list_changed', () => this.refreshTools(generation))
    client.onclose = () => {
      if (generation === this.generation && this.state === 'connected')
        this.lose(generation, this.closedReason())
    }
    client.onerror = (error) => {
      if (generation !== this.generation) return
      this.log.debug(`transport error: ${describeError(error)}`)
      // A remote transport reports a dead server only as errors (a dropped stream, a failed POST):
      // check with a ping before calling the connection lost.
      if (this.state === 'connected' && this.config.transport !== 'stdio')
        this.verifyConnection(generation, error)
    }
  }

  private async fetchTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
    // listTools() would log to stdout (console.debug) for a server without tools: stdout is the
    // protocol in `serve`, so check the capability first.
    if (!client.getServerCapabilities()?.tools) return []
    // Without a cursor the SDK walks every page (following nextCursor). 'bypass' keeps the SDK's
    // response cache empty, so callTool() does not validate outputSchema a second time: we do.
    const {tools} = await client.listTools(undefined, {
      cacheMode: 'bypass',
      signal,
      timeout: this.connectTimeoutMs,
    })
    return tools
  }

  private applyTools(tools: Tool[]): void {
    const {kept, clashes} = dedupeTools(this.name, tools)
    for (const clash of clashes) this.log.warn(describeClash(clash))
    this.clashes = clashes
    this.tools = kept.map(({name, tool}) => ({
      name,
      server: this.name,
      tool: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.outputSchema ? {outputSchema: tool.outputSchema as Record<string, unknown>} : {}),
      ...toolHints(tool),
    }))
  }

  /** `notifications/tools/list_changed`: list again; a failure keeps the previous list. */
  private refreshTools(generation: number): void {
    if (generation !== this.generation) return
    if (this.state === 'connecting' || this.refreshing) {
      this.refreshAgain = true
      return
    }
    const {client} = this
    if (this.state !== 'connected' || !client) return
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false
        try {
          const tools = await this.fetchTools(client)
          if (generation !== this.generation) return
          this.applyTools(tools)
          this.log.info(`tool list changed, ${this.tools.length} tools`)
          this.emit()
        } catch (error) {
          if (generation !== this.generation) return
          this.log.warn(`could not refresh the tool list, keeping the previous one: ${describeError(error)}`)
        }
      } while (this.refreshAgain && generation === this.generation)
    })().finally(() => {
      this.refreshing = undefined
    })
  }

  private verifyConnection(generation: number, cause: unknown): void {
    const {client} = this
    if (this.verifying || !client) return
    this.verifying = true
    client
      .ping({timeout: Math.min(VERIFY_TIMEOUT_MS, this.connectTimeoutMs)})
      .then(
        () => {},
        (error: unknown) => {
          // An error answer means the server is there; a slow answer is not a lost connection either.
          if (error instanceof ProtocolError || isTimeout(error)) return
          const signIn = signInMessage(error) ?? signInMessage(cause)
          this.lose(generation, signIn ?? `connection lost: ${describeError(cause)}`, signIn !== undefined)
        },
      )
      .finally(() => {
        this.verifying = false
      })
  }

  /** The connection was lost: drop the tools, report, and reconnect after a backoff (or after a sign-in). */
  private lose(generation: number, reason: string, signIn = false): void {
    if (generation !== this.generation || this.state !== 'connected') return
    this.generation++
    // A connection that lasted resets the backoff; one that dies at once keeps it growing.
    if (Date.now() - this.connectedAt >= this.backoff.maxMs) this.failureStreak = 0
    this.state = 'waiting'
    this.lastError = this.redact(reason)
    this.since = new Date()
    this.tools = []
    this.disconnect()
    if (signIn) {
      this.waitForSignIn()
      this.log.warn(this.lastError)
    } else {
      const delay = this.scheduleRetry()
      this.log.warn(`${this.lastError}; reconnecting in ${formatSeconds(delay)}`)
    }
    this.emit()
  }

  /** A connection attempt failed. */
  private fail(unredacted: string, failure: ConnectFailure): void {
    const reason = this.redact(unredacted)
    const repeated = reason === this.lastError
    this.failure = failure
    this.generation++
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

  /**
   * Only the user can help a server that needs sign-in, so nothing is retried on a timer (no retry
   * storm against the authorization server): the next attempt starts when tokens appear in the store.
   */
  private waitForSignIn(): void {
    const {oauth} = this
    if (!oauth) return
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    this.awaitingSignIn = true
    this.stopWatching ??= oauth.watch(() => {
      if (!this.awaitingSignIn) return
      oauth.hasTokens().then(
        (has) => {
          if (!has || !this.awaitingSignIn || this.state !== 'waiting') return
          this.awaitingSignIn = false
          this.log.info('new sign-in found; connecting')
          this.attempt()
        },
        () => {},
      )
    })
  }

  private scheduleRetry(): number {
    const base = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** Math.min(this.failureStreak, 30))
    this.failureStreak++
    // ±20 % jitter, so servers that failed together do not retry in lockstep.
    const delay = Math.round(Math.min(this.backoff.maxMs, base * (0.8 + Math.random() * 0.4)))
    clearTimeout(this.retryTimer)
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      if (this.state === 'waiting') this.attempt()
    }, delay)
    // Retrying must not keep a finished CLI command alive; `serve` is kept alive by its own stdin.
    this.retryTimer.unref()
    return delay
  }

  /** Closes the current client and transport without waiting; close() waits for all of them. */
  private disconnect(): void {
    const {client} = this
    const {transport} = this
    this.client = undefined
    this.transport = undefined
    if (!client && !transport) return
    const closing = (async () => {
      // Client.close() closes the transport it is attached to; closing the transport as well covers an
      // attempt that failed before the client attached it. Both are idempotent.
      await client?.close().catch(() => {})
      await transport?.close().catch(() => {})
    })()
    this.closing.add(closing)
    closing.finally(() => this.closing.delete(closing)).catch(() => {})
  }

  private callError(error: unknown, generation: number, options: CallOptions): ToolError {
    if (error instanceof ToolError) return error
    const signIn = signInMessage(error)
    if (signIn !== undefined) {
      this.lose(generation, signIn, true)
      return new ToolError(`server '${this.name}' ${signIn}`, {cause: error, kind: 'unavailable'})
    }
    if (options.signal?.aborted) return new ToolError('tool call cancelled', {cause: error})
    if (isTimeout(error))
      return new ToolError(`tool call timed out after ${formatSeconds(options.timeoutMs)}`, {
        cause: error,
        kind: 'timeout',
      })
    const oversized = oversizedMessageBytes(error)
    if (oversized !== undefined) return new ResultTooLargeError(oversized, {cause: error})
    if (error instanceof ProtocolError) {
      return new ToolError(`server '${this.name}' answered with an error: ${error.message}`, {
        cause: error,
        kind: 'protocol',
      })
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
      return new ToolError(`server '${this.name}' sent an invalid result: ${error.message}`, {
        cause: error,
        kind: 'protocol',
      })
    }
    if (
      error instanceof SdkError &&
      (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
    ) {
      const reason = generation !== this.generation && this.lastError ? ` (${this.lastError})` : ''
      return new ToolError(`lost the connection to server '${this.name}' during the call${reason}`, {
        cause: error,
        kind: 'unavailable',
      })
    }
    // Anything else (a failed HTTP request, a network error) may or may not mean the server is gone.
    if (this.config.transport !== 'stdio' && generation === this.generation)
      this.verifyConnection(generation, error)
    return new ToolError(`call to server '${this.name}' failed: ${describeError(error)}`, {
      cause: error,
      kind: 'unavailable',
    })
  }

  private notConnectedMessage(): string {
    return notConnectedMessage(this.name, this.reason)
  }

  private closedReason(): string {
    if (this.config.transport !== 'stdio') return 'connection closed'
    return withStderr('server process exited', this.stderr.reason(Date.now() - STDERR_RECENT_MS))
  }

  /** The reason of a failed attempt, for people and the model, and its kind, for the CLI's advice. */
  private describeFailure(error: unknown, deadline: AbortSignal): {reason: string; failure: ConnectFailure} {
    const stderr = this.stderr.reason()
    const result = (reason: string, failure: Omit<ConnectFailure, 'stderr'>) => ({
      reason: withStderr(reason, stderr),
      failure: {...failure, ...(stderr === undefined ? {} : {stderr})},
    })
    if (this.echoedInitialize) {
      return result('not an MCP server: it sent the initialize request back instead of answering it', {
        kind: 'not_mcp',
      })
    }
    if (deadline.aborted) return result(describeError(deadline.reason), {kind: 'timeout'})
    const signIn = signInMessage(error)
    if (signIn !== undefined) return {reason: signIn, failure: {kind: 'needs_sign_in'}}
    if (this.config.transport !== 'stdio') return result(describeError(error), remoteFailureKind(error))
    const code = errorCode(error)
    if (code === 'ENOENT')
      return result(`command not found: ${this.config.command}`, {kind: 'command_not_found'})
    if (code === 'EACCES')
      return result(`command not executable: ${this.config.command}`, {kind: 'not_executable'})
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
      return result('server process exited during startup', {kind: 'exited'})
    }
    return result(describeError(error), {kind: 'other'})
  }

  /** Why the last connection attempt failed, as a kind; null while connected or before any failure. */
  get lastFailure(): ConnectFailure | null {
    return this.failure
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

/** Only boolean hints are kept: a server's malformed annotations never ask or exempt anything. */
function toolHints(tool: Tool): {annotations?: ToolHints} {
  const {destructiveHint, readOnlyHint} = tool.annotations ?? {}
  const hints: ToolHints = {}
  if (typeof destructiveHint === 'boolean') hints.destructiveHint = destructiveHint
  if (typeof readOnlyHint === 'boolean') hints.readOnlyHint = readOnlyHint
  return Object.keys(hints).length > 0 ? {annotations: hints} : {}
}

function refusalMessage(method: string): string {
  switch (method) {
    case 'elicitation/create': {
      return 'ptc-mcp does not support elicitation (elicitation/create) here: its own client cannot ask the user (serve passes elicitation on to clients that support it)'
    }
    case 'roots/list': {
      return 'ptc-mcp does not support roots (roots/list)'
    }
    case 'sampling/createMessage': {
      return 'ptc-mcp does not support sampling (sampling/createMessage) here: its own client cannot sample (serve passes sampling on to clients that support it)'
    }
    default: {
      return `ptc-mcp does not support ${method}`
    }
  }
}

function describeClash(clash: NameClash): string {
  const [kept, ...dropped] = clash.tools
  return `tools ${clash.tools.map((t) => `'${t}'`).join(', ')} all become ${clash.name}; keeping '${kept}', ignoring ${dropped.map((t) => `'${t}'`).join(', ')}`
}

function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout
}

/** The message of an error and of its causes (`fetch failed: connect ECONNREFUSED 127.0.0.1:9`), without repeats. */
/** HTTP errors from the SDK carry the status apart from the message (which may be the body). */
function withHttpStatus(error: unknown, message: string): string {
  const status = (error as {status?: unknown} | null)?.status
  if (typeof status !== 'number' || message.includes(String(status))) return message
  return `HTTP ${status}${message ? ` (${message})` : ''}`
}

export function describeError(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const trimmed = withHttpStatus(current, messageOf(current).trim())
    if (trimmed && !parts.some((p) => p.includes(trimmed))) parts.push(trimmed)
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join(': ') || 'unknown error'
}

function messageOf(value: unknown): string {
  if (value instanceof SdkHttpError && typeof value.status === 'number') return httpErrorMessage(value)
  if (value instanceof Error) return value.message
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Bound on the part of an HTTP error body quoted in a reason: an HTML error page can be huge. */
const HTTP_BODY_CHARS = 200

/**
 * `HTTP 500 Internal Server Error: <start of the body>`. The SDK's message is the whole body
 * without the status ("Error POSTing to endpoint: <!DOCTYPE html>..."), and this text ends up in
 * list_callable_tools, in every ToolError and in the log.
 */
function httpErrorMessage(error: SdkHttpError): string {
  const {status, statusText} = error
  const data = error.data as {text?: unknown} | undefined
  const raw = typeof data?.text === 'string' ? data.text.slice(0, 64 * HTTP_BODY_CHARS) : ''
  const body = (/^\s*</.test(raw) ? raw.replaceAll(/<[^>]*>/g, ' ') : raw).replaceAll(/\s+/g, ' ').trim()
  const quoted = body.length > HTTP_BODY_CHARS ? `${body.slice(0, HTTP_BODY_CHARS)}...` : body
  const hint =
    status === 401 || status === 403 ? ' (check the headers, such as Authorization, in the config)' : ''
  return `HTTP ${status}${statusText ? ` ${statusText}` : ''}${hint}${quoted ? `: ${quoted}` : ''}`
}

function errorCode(error: unknown): string | undefined {
  const code = (error as {code?: unknown} | null)?.code
  return typeof code === 'string' ? code : undefined
}

function withStderr(reason: string, line: string | undefined): string {
  return line ? `${reason}; stderr: ${line}` : reason
}

/** `1500` → `1.5s`, `60000` → `60s`. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`
}

function deferred(): {promise: Promise<void>; resolve: () => void} {
  let resolve!: () => void
  const promise = new Promise<void>((settle) => {
    resolve = settle
  })
  return {promise, resolve}
}

/** Rejects with the signal's reason as soon as it aborts, whatever the promise does. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, {once: true})
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

function packageVersion(): string {
  try {
    // From src/downstream or dist/downstream, package.json is two levels up.
    const pkg = createRequire(import.meta.url)('../../package.json') as {version?: unknown}
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  } catch {
    return '0.0.0'
  }
}
