import type {CallToolResult} from '@modelcontextprotocol/client'

import type {UnusableServer} from '../config/degrade.js'
import type {ConnectFailure} from './connection/failure-cause.js'
import type {
  DownstreamServerStatus,
  RegistryConfig,
  ToolRegistryOptions,
  ToolVisibility,
} from './registry-options.js'

import {timeoutSignal, unlessAborted} from '../shared/abortable.js'
import {downstreamMessageBytes} from '../shared/limits.js'
import {createLogger, type Logger} from '../shared/log.js'
import {normaliseName, serverPrefix} from '../shared/naming.js'
import {checkArguments, checkResult, type ResultChecks, tooLargeError} from './calls/call-checks.js'
import {SchemaValidator} from './calls/validation.js'
import {untilConnected} from './connection/connected-wait.js'
import {Redactor} from './connection/redactor.js'
import {ServerSupervisor} from './connection/supervisor.js'
import {type CatalogueEntry, catalogueEntry} from './tools/catalogue.js'
import {ToolFilter, type UnmatchedRule} from './tools/filter.js'
import {defaultShapesDir, serverIdentity, ShapeStore} from './tools/shape-store.js'
import {ToolIndex} from './tools/tool-index.js'
import {lookupTool, notConnectedMessage} from './tools/tool-lookup.js'
import {
  type CallToolOptions,
  type HiddenTool,
  ResultTooLargeError,
  startingText,
  ToolError,
  type ToolHost,
  type ToolInfo,
  type UnavailableServer,
} from './types.js'

const FILTER_FIX = 'change tools.allow / tools.block in the config'

/**
 * Every downstream server's tools behind one interface (`ToolHost`): one supervisor per server,
 * allow/block applied to everything listed and callable, arguments validated before anything is
 * sent, results checked and parsed (SPEC §4, §6).
 */
export class ToolRegistry implements ToolHost {
  private readonly supervisors: ServerSupervisor[]
  private readonly filter: ToolFilter
  private readonly validator = new SchemaValidator()
  private readonly resultChecks: ResultChecks
  private readonly log: Logger
  /** Redacts the config's secrets from every message, status and log line (SPEC §15). */
  readonly redactor: Redactor
  private readonly shapes: ShapeStore
  private readonly visibility: ToolVisibility | undefined
  private readonly listeners = new Set<() => void>()
  private readonly unusable: readonly UnusableServer[]
  /** The tools of connected servers by namespaced name; rebuilt on every change. */
  private index = ToolIndex.EMPTY
  private readonly warnedRules = new Set<string>()
  private started = false
  private closed = false
  /** Every server has finished its first attempt: waiting for them costs nothing from then on. */
  private firstAttemptsDone = false

  constructor(config: RegistryConfig, options: ToolRegistryOptions = {}) {
    this.redactor = options.redactor ?? Redactor.fromConfig(config.servers, options.secrets)
    this.log = this.redactor.logger(options.logger ?? createLogger())
    this.filter = new ToolFilter(config.tools)
    this.unusable = (options.unusable ?? []).map((s) => ({...s, reason: this.redactor.redact(s.reason)}))
    this.shapes = new ShapeStore(
      options.shapesDir === undefined ? defaultShapesDir() : options.shapesDir,
      this.log,
      new Map(config.servers.map((server) => [server.name, serverIdentity(server)])),
    )
    this.resultChecks = {
      validator: this.validator,
      shapes: this.shapes,
      recordSamples: config.execution?.record_samples ?? false,
    }
    const maxMessageBytes = options.maxMessageBytes ?? downstreamMessageBytes(config.execution)
    this.supervisors = config.servers.map(
      (server) =>
        new ServerSupervisor(server, {
          logger: this.log,
          connectTimeoutMs: options.connectTimeoutMs,
          backoff: options.backoff,
          maxMessageBytes,
          upstream: options.upstream,
          redact: (text) => this.redactor.redact(text),
          addSecrets: (values) => this.redactor.add(values),
          createTransport: options.createTransport,
        }),
    )
    for (const supervisor of this.supervisors) supervisor.onChange(() => this.rebuild())
    this.visibility = options.visibility
    this.visibility?.onChange(() => this.rebuild())
  }

  /** Starts every supervisor; returns at once (servers connect in the background). */
  start(): void {
    if (this.started || this.closed) return
    this.started = true
    for (const supervisor of this.supervisors) supervisor.start()
    Promise.all(this.supervisors.map((s) => s.firstAttempt)).then(() => {
      this.firstAttemptsDone = true
      this.warnUnmatchedRules()
    })
  }

  /** Permitted tools of connected servers, sorted by name. */
  listTools(): ToolInfo[] {
    return [...this.index.sorted]
  }

  approvalNote(tool: ToolInfo): string | undefined {
    return this.visibility?.approvalNote(tool)
  }

  getTool(name: string): ToolInfo | undefined {
    return this.index.get(name)?.tool
  }

  /** Tools of connected servers hidden by a rule, sorted by name: for the CLI. */
  hiddenTools(): HiddenTool[] {
    return this.index.hiddenTools()
  }

  /** Why `name` (in ptc-mcp's spelling or the server's own) is hidden, when a connected server offers it and a rule hides it. */
  hiddenTool(name: string): HiddenTool | undefined {
    return this.index.hiddenTool(normaliseName(name))
  }

  /**
   * The allow/block patterns that match no tool of any connected server: a misspelt rule, or a tool
   * that is gone. Meaningful once the servers have made their first attempt.
   */
  unmatchedRules(): UnmatchedRule[] {
    const down = this.supervisors.filter((s) => !s.connected).map((s) => s.name)
    return this.filter.unmatchedRules(this.index.offered, down)
  }

  observedResult(name: string): unknown {
    const tool = this.index.get(name)?.tool
    return tool && !tool.outputSchema ? this.shapes.get(tool) : undefined
  }

  /** Servers that are not connected, with the reason ("connecting" while on the first attempt). */
  unavailableServers(): UnavailableServer[] {
    return [
      ...this.supervisors
        .filter((s) => !s.connected)
        .map((s): UnavailableServer => {
          // Reconnecting servers stay with their reason in the unavailable list (calls still wait).
          if (!s.status().connecting) return {name: s.name, reason: s.reason}
          const forMs = Date.now() - Date.parse(s.status().since)
          return {name: s.name, reason: s.reason, starting: {forMs, upToMs: s.startTimeoutMs}}
        }),
      ...this.unusable.map(({name, reason}) => ({name, reason, unusable: true as const})),
    ]
  }

  serverStatus(): DownstreamServerStatus[] {
    // lastError is redacted where it is set (the supervisor); warnings hold only tool names.
    const counts = this.index.countsByServer()
    const connectable = this.supervisors.map((supervisor): DownstreamServerStatus => {
      const {name, transport, connected, connecting, lastError, attempts, since, warnings} =
        supervisor.status()
      const tools = counts.get(name) ?? 0
      const forMs = Date.now() - Date.parse(since)
      return {
        name,
        transport,
        connected,
        tools,
        lastError,
        attempts,
        since,
        ...(connecting && !connected
          ? {starting: startingText({forMs, upToMs: supervisor.startTimeoutMs})}
          : {}),
        ...(warnings.length > 0 ? {warnings} : {}),
      }
    })
    const since = new Date(0).toISOString()
    const unusable = this.unusable.map(({name, transport, reason}) => ({
      name,
      transport,
      connected: false,
      tools: 0,
      lastError: reason,
      attempts: 0,
      since,
    }))
    return [...connectable, ...unusable]
  }

  /** The catalogue entries of the connected servers (SPEC §5 server instructions), in config order. */
  catalogue(): CatalogueEntry[] {
    return this.supervisors
      .filter((s) => s.connected)
      .map((s) => {
        // The permitted tools, in the server's own order (its first are usually its main ones).
        const toolNames = s
          .listTools()
          .filter((tool) => this.index.get(tool.name))
          .map((tool) => tool.tool)
        const entry = catalogueEntry({name: s.name, ...s.words, toolNames})
        return entry.about ? {...entry, about: this.redactor.redact(entry.about)} : entry
      })
  }

  /** Resolves when every server has finished its first attempt (connected or failed), or after `timeoutMs`. */
  async waitForInitialConnections(timeoutMs: number): Promise<void> {
    // Every execute_program asks: no timer once there is nothing left to wait for.
    if (this.firstAttemptsDone) return
    const timeout = timeoutSignal(timeoutMs)
    await unlessAborted(Promise.all(this.supervisors.map((s) => s.firstAttempt)), timeout).catch((error) => {
      if (!timeout.aborted) throw error
    })
  }

  /** Resolves with one server's status once its first attempt has ended (undefined for an unknown name). */
  async firstAttempt(name: string): Promise<DownstreamServerStatus | undefined> {
    await this.supervisors.find((s) => s.name === name)?.firstAttempt
    return this.serverStatus().find((s) => s.name === name)
  }

  /** A server's bound on one connection attempt (its connect_timeout_seconds), undefined for an unknown one. */
  connectTimeoutMs(name: string): number | undefined {
    return this.supervisors.find((s) => s.name === name)?.startTimeoutMs
  }

  /** Why a server's last connection attempt failed, as a kind (null when connected, unknown or never failed). */
  connectFailure(name: string): ConnectFailure | null {
    return this.supervisors.find((s) => s.name === name)?.lastFailure ?? null
  }

  /** Called whenever the tool list or a server's status changes. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<unknown> {
    try {
      return await this.callPermittedTool(name, args, options)
    } catch (error) {
      // A server's error text may quote the config's secrets.
      throw this.redactor.redactError(error)
    }
  }

  private async callPermittedTool(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<unknown> {
    let {tool, unknown, hidden} = lookupTool(this, name)
    if (hidden?.told) throw new ToolError(unknown!, {kind: 'denied'})
    // A server still starting (or reconnecting) is waited for, within the call's own timeout.
    const owner = tool || hidden ? undefined : this.ownerOf(name)
    let {timeoutMs} = options
    if (owner && !owner.connected && owner.starting) {
      const started = Date.now()
      const waitMs = Math.min(timeoutMs, owner.startTimeoutMs)
      options.onServerWait?.(owner.name, waitMs)
      if (await untilConnected(owner, waitMs, options.signal))
        ({tool, unknown, hidden} = lookupTool(this, name))
      timeoutMs = Math.max(1, timeoutMs - (Date.now() - started))
    }
    if (hidden?.told) throw new ToolError(unknown!, {kind: 'denied'})
    if (!tool) throw this.missingToolError(name, unknown!)
    const {supervisor} = this.index.get(name)!
    args = checkArguments(tool, args, this.validator)
    // Rule: a call the user did not approve never reaches the server either.
    if (options.approve) await options.approve(tool, args)

    let result: CallToolResult
    try {
      result = await supervisor.callTool(tool.tool, args, {signal: options.signal, timeoutMs})
    } catch (error) {
      if (error instanceof ResultTooLargeError) throw tooLargeError(tool, error.bytes, options)
      throw error
    }
    return checkResult(tool, result, options, this.resultChecks)
  }

  /** Closes every connection and stops retrying; stdio servers are shut down and waited for. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all(this.supervisors.map((s) => s.close()))
    this.index = ToolIndex.EMPTY
    this.listeners.clear()
  }

  /** Unknown tool, or a tool of a server that is down (then the server and its reason are named). */
  private missingToolError(name: string, unknown: string): ToolError {
    const owner = this.ownerOf(name)
    if (owner && !owner.connected)
      return new ToolError(notConnectedMessage(owner.name, owner.reason), {kind: 'unavailable'})
    const unusable = this.unusable.find((s) => name.startsWith(serverPrefix(s.name)))
    if (!owner && unusable)
      return new ToolError(notConnectedMessage(unusable.name, unusable.reason), {kind: 'unavailable'})
    return new ToolError(unknown, {kind: 'unknown_tool'})
  }

  /** The server whose `mcp__<server>__` prefix a tool name has (the longest such name). */
  private ownerOf(name: string): ServerSupervisor | undefined {
    return this.supervisors
      .filter((s) => name.startsWith(serverPrefix(s.name)))
      .sort((a, b) => b.name.length - a.name.length)[0]
  }

  private rebuild(): void {
    this.index = ToolIndex.build(
      this.supervisors,
      {
        hiddenBy: (tool) => {
          const filtered = this.filter.hiddenBy(tool.name)
          if (filtered !== undefined) return {reason: filtered, told: false, fix: FILTER_FIX}
          const denied = this.visibility?.hiddenBy(tool)
          if (denied === undefined) return
          return {
            reason: denied,
            told: true,
            fix: this.visibility?.unhideFix?.(tool) ?? 'remove the deny rule that hides it',
          }
        },
        redact: (tool) => this.redactor.redactValue(tool),
      },
      this.log,
    )
    if (this.firstAttemptsDone) this.warnUnmatchedRules()
    for (const listener of this.listeners) {
      try {
        listener()
      } catch (error) {
        this.log.error(`change listener failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }

  /** Logs each rule that matches nothing, once: a misspelt block rule must not fail open silently. */
  private warnUnmatchedRules(): void {
    for (const rule of this.unmatchedRules()) {
      const key = `${rule.list} ${rule.pattern}`
      if (this.warnedRules.has(key)) continue
      this.warnedRules.add(key)
      this.log.warn(rule.message)
    }
  }
}
