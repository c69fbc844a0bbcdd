import {type CallToolResult, ProtocolError, type Tool, type Transport} from '@modelcontextprotocol/client'
import {createRequire} from 'node:module'

import type {ServerConfig} from '../../config/schema.js'
import type {OAuthSession} from '../../oauth/session.js'
import type {Logger} from '../../shared/log.js'
import type {ServerTransport, TransportFactory} from '../transport/server-transport.js'
import type {ConnectFailure} from './failure-cause.js'
import type {UpstreamClient} from './upstream.js'

import {signInMessage} from '../../oauth/errors.js'
import {MAX_TOOL_PAGES, VERIFY_TIMEOUT_MS} from '../../shared/limits.js'
import {formatSeconds} from '../../shared/seconds.js'
import {traceMeta} from '../../shared/trace-context.js'
import {callFailure, type CallOptions, isTimeout} from '../calls/call-error.js'
import {StderrRecord} from '../transport/stderr-record.js'
import {transportPid} from '../transport/stdio-transport.js'
import {forwardedCapabilities, installForwarding, installRefusals} from './client-requests.js'
import {DownstreamClient} from './downstream-client.js'
import {describeError} from './error-text.js'
import {connectFailure, failure} from './failure.js'
import {listServerTools} from './tool-listing.js'

export interface ConnectionOptions {
  config: ServerConfig
  /** The server's own logger (its name as prefix). */
  log: Logger
  /** Bound on connecting and the first listing together. */
  connectTimeoutMs: number
  maxMessageBytes: number | undefined
  upstream: UpstreamClient | undefined
  oauth: OAuthSession | undefined
  createTransport: TransportFactory
  /** What differs between stdio and remote servers. */
  transport: ServerTransport
  /** Why the server was last lost, for a call that outlived its connection. */
  lastError: () => null | string
}

export interface ConnectionEvents {
  /** The open connection was lost (not closed by us): why, and whether only a sign-in can help. */
  lost(reason: string, needsSignIn: boolean): void
  /** The server said its tools changed, and they were listed again. */
  toolsChanged(tools: Tool[]): void
}

/** What a server said of itself when it connected (its initialize answer). */
export interface ServerWords {
  instructions?: string
  title?: string
}

export type OpenResult = {failure: ConnectFailure; ok: false} | {ok: true; tools: Tool[]; words: ServerWords}

const CLIENT_INFO = {name: 'ptc-mcp', version: packageVersion()}

/**
 * One connection attempt to a downstream server and the session it opens: the client, its
 * transport and what the server wrote to stderr. It tells its supervisor when the session is lost
 * or the tools change; once closed (by the supervisor, or lost) it never speaks again.
 */
export class ServerConnection {
  private state: 'closed' | 'connecting' | 'open' = 'connecting'
  private client: DownstreamClient | undefined
  private transport: Transport | undefined
  private readonly stderr = new StderrRecord()
  /** The server sent our own initialize request back: whatever it is, it does not speak MCP. */
  private echoedInitialize = false
  private refreshing: Promise<void> | undefined
  private refreshAgain = false
  private verifying = false

  constructor(
    private readonly options: ConnectionOptions,
    private readonly events: ConnectionEvents,
  ) {}

  /** The pid of the stdio server process, or null (remote server, or not running). */
  get pid(): null | number {
    return this.transport ? transportPid(this.transport) : null
  }

  /** Connects and lists every tool, within the connect timeout; a failure comes back classified. */
  async open(): Promise<OpenResult> {
    const {config, connectTimeoutMs, log, upstream} = this.options
    let transport: Transport
    try {
      transport = this.options.createTransport(config, {
        logger: log,
        maxMessageBytes: this.options.maxMessageBytes,
        authProvider: this.options.oauth,
        onStderrLine: (line) => this.stderr.add(line),
      })
    } catch (error) {
      return {ok: false, failure: failure({kind: 'other', message: describeError(error)}, config)}
    }
    const capabilities = forwardedCapabilities(upstream)
    const client = new DownstreamClient(CLIENT_INFO, {capabilities, listMaxPages: MAX_TOOL_PAGES})
    this.client = client
    this.transport = transport
    this.installHandlers(client)
    installForwarding(client, config.name, upstream, capabilities)

    const deadline = new AbortController()
    const seconds = formatSeconds(connectTimeoutMs)
    const timer = setTimeout(
      () => deadline.abort(new Error(`no answer within ${seconds} (connect timeout)`)),
      connectTimeoutMs,
    )
    try {
      await untilAborted(
        client.connect(transport, {signal: deadline.signal, timeout: connectTimeoutMs}),
        deadline.signal,
      )
      const tools = await untilAborted(
        listServerTools(client, connectTimeoutMs, deadline.signal),
        deadline.signal,
      )
      if (this.state === 'connecting') this.state = 'open'
      const words = {instructions: client.getInstructions(), title: client.getServerVersion()?.title}
      return {ok: true, tools, words}
    } catch (error) {
      const facts = {
        echoedInitialize: this.echoedInitialize,
        deadline: deadline.signal,
        stderr: this.stderr.reason(),
        sentToken: this.options.oauth?.sentToken ?? false,
      }
      return {
        ok: false,
        failure: connectFailure(error, config, facts, (e) => this.options.transport.failureCause(e)),
      }
    } finally {
      clearTimeout(timer)
    }
  }

  /** Lists again if the server said its tools changed while the connection was opening. */
  refreshIfChanged(): void {
    if (this.refreshAgain) this.refreshTools()
  }

  /**
   * Calls a tool by its own (not namespaced) name. Throws `ToolError` for a timeout, a cancellation,
   * a protocol error, bad data or a lost connection; returns `isError` results as they are.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    const {client} = this
    if (!client) throw new Error('callTool on a connection that is not open')
    try {
      return await client.requestTool(
        // A traced call's context goes on to the server (SPEC §18).
        {name: tool, arguments: args, ...traceMeta()},
        {signal: options.signal, timeout: options.timeoutMs},
      )
    } catch (error) {
      const lostReason = this.state === 'open' ? null : this.options.lastError()
      const failed = callFailure(error, this.options.config.name, options, lostReason)
      if (failed.needsSignIn !== undefined) this.lose(failed.needsSignIn, true)
      else if (failed.mayBeLost && this.options.transport.pingsOnError && this.state === 'open')
        this.verify(error)
      throw failed.error
    }
  }

  /** Closes the client and its transport (a stdio server is shut down in steps); idempotent. */
  async close(): Promise<void> {
    this.state = 'closed'
    const {client, transport} = this
    this.client = undefined
    this.transport = undefined
    // Client.close() closes the transport it is attached to; closing the transport as well covers an
    // attempt that failed before the client attached it. Both are idempotent.
    await client?.close().catch(() => {})
    await transport?.close().catch(() => {})
  }

  private installHandlers(client: DownstreamClient): void {
    installRefusals(client, () => {
      this.echoedInitialize = true
    })
    client.setNotificationHandler('notifications/tools/list_changed', () => this.refreshTools())
    client.onclose = () => {
      if (this.state === 'open') this.lose(this.options.transport.closedReason(this.stderr), false)
    }
    client.onerror = (error) => {
      if (this.state === 'closed') return
      this.options.log.debug(`transport error: ${describeError(error)}`)
      if (this.state === 'open' && this.options.transport.pingsOnError) this.verify(error)
    }
  }

  /** Tells the supervisor, once, that the open connection is gone. */
  private lose(reason: string, needsSignIn: boolean): void {
    if (this.state !== 'open') return
    this.events.lost(reason, needsSignIn)
  }

  /** `notifications/tools/list_changed`: list again; a failure keeps the previous list. */
  private refreshTools(): void {
    if (this.state === 'closed') return
    if (this.state === 'connecting' || this.refreshing) {
      this.refreshAgain = true
      return
    }
    const {client} = this
    if (!client) return
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false
        try {
          const tools = await listServerTools(client, this.options.connectTimeoutMs)
          if (this.state !== 'open') return
          this.events.toolsChanged(tools)
        } catch (error) {
          if (this.state !== 'open') return
          this.options.log.warn(
            `could not refresh the tool list, keeping the previous one: ${describeError(error)}`,
          )
        }
      } while (this.refreshAgain && this.state === 'open')
    })().finally(() => {
      this.refreshing = undefined
    })
  }

  /** A remote transport reports a dead server only as errors: a ping tells a lost connection from a passing error. */
  private verify(cause: unknown): void {
    const {client} = this
    if (this.verifying || !client) return
    this.verifying = true
    client
      .ping({timeout: Math.min(VERIFY_TIMEOUT_MS, this.options.connectTimeoutMs)})
      .then(
        () => {},
        (error: unknown) => {
          // An error answer means the server is there; a slow answer is not a lost connection either.
          if (error instanceof ProtocolError || isTimeout(error)) return
          const signIn = signInMessage(error) ?? signInMessage(cause)
          this.lose(signIn ?? `connection lost: ${describeError(cause)}`, signIn !== undefined)
        },
      )
      .finally(() => {
        this.verifying = false
      })
  }
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
    const pkg = createRequire(import.meta.url)('../../../package.json') as {version?: unknown}
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  } catch {
    return '0.0.0'
  }
}
