import type {CallToolResult} from '@modelcontextprotocol/client'

import type {UnusableServer} from '../config/degrade.js'
import type {Config} from '../config/schema.js'
import type {BackoffOptions} from './backoff.js'
import type {ConnectFailure} from './failure.js'
import type {TransportFactory} from './transports.js'
import type {UpstreamClient} from './upstream.js'

import {createLogger, type Logger} from '../log.js'
import {prepareArguments} from './arguments.js'
import {ToolFilter, type ToolRule} from './filter.js'
import {normaliseName} from './naming.js'
import {Redactor} from './redactor.js'
import {loneText, parseToolResult, toolErrorText} from './result-parser.js'
import {defaultShapesDir, ShapeStore} from './shape-store.js'
import {shapeOf, textShape} from './shapes.js'
import {ServerSupervisor} from './supervisor.js'
import {lookupTool, notConnectedMessage} from './tool-lookup.js'
import {
  type CallToolOptions,
  JsonText,
  ResultTooLargeError,
  type ServerStatus,
  ToolError,
  type ToolHost,
  type ToolInfo,
  type UnavailableServer,
} from './types.js'
import {SchemaValidator} from './validation.js'

export interface ToolRegistryOptions {
  /** Default: a stderr logger at `PTC_MCP_LOG_LEVEL` (warn). */
  logger?: Logger
  /** Bound on one connection attempt (connect and first listing). Default 30000 ms. */
  connectTimeoutMs?: number
  /** Reconnection delays. Default 1 s doubling to 60 s, with jitter. */
  backoff?: Partial<BackoffOptions>
  /**
   * Largest single message received from a stdio server. Default: twice `max_tool_result_bytes`
   * plus 1 MiB (JSON escaping inflates text), at least the SDK's 10 MB. A result in a larger message
   * is skipped unread and fails its own call only; smaller ones are measured as the program would
   * receive them. Either way the `ToolError` is the same.
   */
  maxMessageBytes?: number
  /** Rules that hide tools beyond tools.allow/block (Claude Code deny rules, SPEC §12); followed as they change. */
  visibility?: ToolVisibility
  /** ptc-mcp's own client, for the servers' elicitation and sampling requests (SPEC §12). Default: none. */
  upstream?: UpstreamClient
  /** Servers whose config entry cannot be used: always unavailable, with the reason. Default: none. */
  unusable?: readonly UnusableServer[]
  /**
   * Where result shapes are kept across restarts (SPEC §5 observed_result); null keeps them in
   * memory only. Default `$XDG_CACHE_HOME/ptc-mcp/shapes`.
   */
  shapesDir?: string | null
  /**
   * The values `${VAR}` references took when the config was loaded (`loadConfig().secrets`); with
   * the config's header and env values they are redacted from everything the registry says.
   */
  secrets?: Iterable<string>
  /** The redactor to use instead of one built from the config and `secrets` (the runtime shares its own). */
  redactor?: Redactor
  /** Makes each server's transport for every connection attempt. Default: by the config's `transport`. */
  createTransport?: TransportFactory
}

/** A tool a connected server offers that `tools.allow` / `tools.block` hides. */
export interface HiddenTool {
  tool: ToolInfo
  /** `hidden by tools.block ("mcp__x__get-env")`, for the CLI only: the model is told nothing. */
  reason: string
}

/** A rule that matches no tool of the connected servers (SPEC §4): warned about in the log and by doctor. */
export interface UnmatchedRule {
  list: ToolRule['list']
  pattern: string
  /** One line for the log and doctor, with what to check. */
  message: string
}

/** What the registry needs of the permission rules: `PermissionPolicy` implements it. */
export interface ToolVisibility {
  /** Why the tool is hidden (for the CLI), or undefined. */
  hiddenBy(tool: ToolInfo): string | undefined
  /** Whether calls to the tool ask the user first, and why (for inspect_tool and list), or undefined. */
  approvalNote(tool: ToolInfo): string | undefined
  onChange(listener: () => void): () => void
}

/** `ServerStatus` plus name clashes among the server's tools, when there are any. */
export interface DownstreamServerStatus extends ServerStatus {
  warnings?: string[]
}

type RegistryConfig = Partial<Pick<Config, 'tools' | 'execution'>> & Pick<Config, 'servers'>

interface Entry {
  tool: ToolInfo
  supervisor: ServerSupervisor
}

const SDK_STDIO_BUFFER = 10 * 1024 * 1024

export const LESS_DATA_HINT = 'request less data: narrower dates, a limit, or a filter'

/**
 * Every downstream server's tools behind one interface (`ToolHost`): one supervisor per server,
 * allow/block applied to everything listed and callable, arguments validated before anything is
 * sent, results checked and parsed (SPEC §4, §6).
 */
export class ToolRegistry implements ToolHost {
  private readonly supervisors: ServerSupervisor[]
  private readonly filter: ToolFilter
  private readonly validator = new SchemaValidator()
  private readonly log: Logger
  /** Redacts the config's secrets from every message, status and log line (SPEC §15). */
  readonly redactor: Redactor
  private readonly shapes: ShapeStore
  private readonly recordSamples: boolean
  private readonly visibility: ToolVisibility | undefined
  private readonly listeners = new Set<() => void>()
  private readonly unusable: readonly UnusableServer[]
  /** Permitted tools of connected servers, by namespaced name; rebuilt on every change. */
  private index = new Map<string, Entry>()
  private sorted: ToolInfo[] = []
  private hidden = new Map<string, HiddenTool>()
  /** Every tool of the connected servers, allowed or not, for checking the rules. */
  private offered: string[] = []
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
    )
    this.recordSamples = config.execution?.record_samples ?? false
    const resultLimit = config.execution?.max_tool_result_bytes ?? 16 * 1024 * 1024
    const maxMessageBytes =
      options.maxMessageBytes ?? Math.max(SDK_STDIO_BUFFER, 2 * resultLimit + 1024 * 1024)
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
    return [...this.sorted]
  }

  approvalNote(tool: ToolInfo): string | undefined {
    return this.visibility?.approvalNote(tool)
  }

  getTool(name: string): ToolInfo | undefined {
    return this.index.get(name)?.tool
  }

  /** Tools of connected servers hidden by `tools.allow` / `tools.block`, sorted by name: for the CLI only. */
  hiddenTools(): HiddenTool[] {
    return [...this.hidden.values()].sort((a, b) => byName(a.tool, b.tool))
  }

  /** Why `name` is hidden, when a connected server offers it and a rule hides it: for the CLI only. */
  hiddenTool(name: string): HiddenTool | undefined {
    return this.hidden.get(name)
  }

  /**
   * The allow/block patterns that match no tool of any connected server: a misspelt rule, or a tool
   * that is gone. Meaningful once the servers have made their first attempt.
   */
  unmatchedRules(): UnmatchedRule[] {
    const down = this.supervisors.filter((s) => !s.connected).map((s) => `'${s.name}'`)
    const unchecked = down.length > 0 ? ` (not connected, so not checked: ${down.join(', ')})` : ''
    return this.filter.unmatched(this.offered).map((rule) => ({
      list: rule.list,
      pattern: rule.pattern,
      message:
        `${rule.list} pattern ${JSON.stringify(rule.pattern)} matches no tool of the connected servers${unchecked}; ` +
        `check its spelling against "ptc-mcp list"`,
    }))
  }

  observedResult(name: string): unknown {
    const tool = this.index.get(name)?.tool
    return tool && !tool.outputSchema ? this.shapes.get(tool) : undefined
  }

  /** Servers that are not connected, with the reason ("connecting" while on the first attempt). */
  unavailableServers(): UnavailableServer[] {
    return [
      ...this.supervisors.filter((s) => !s.connected).map((s) => ({name: s.name, reason: s.reason})),
      ...this.unusable.map(({name, reason}) => ({name, reason})),
    ]
  }

  serverStatus(): DownstreamServerStatus[] {
    const counts = new Map<string, number>()
    // lastError is redacted where it is set (the supervisor); warnings hold only tool names.
    for (const {tool} of this.index.values()) counts.set(tool.server, (counts.get(tool.server) ?? 0) + 1)
    const connectable = this.supervisors.map((supervisor): DownstreamServerStatus => {
      const {name, transport, connected, lastError, attempts, since, warnings} = supervisor.status()
      const tools = counts.get(name) ?? 0
      return {
        name,
        transport,
        connected,
        tools,
        lastError,
        attempts,
        since,
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

  /** Resolves when every server has finished its first attempt (connected or failed), or after `timeoutMs`. */
  async waitForInitialConnections(timeoutMs: number): Promise<void> {
    // Every execute_program asks: no timer once there is nothing left to wait for.
    if (this.firstAttemptsDone) return
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, timeoutMs))
    })
    try {
      await Promise.race([Promise.all(this.supervisors.map((s) => s.firstAttempt)), timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Resolves with one server's status once its first attempt has ended (undefined for an unknown name). */
  async firstAttempt(name: string): Promise<DownstreamServerStatus | undefined> {
    await this.supervisors.find((s) => s.name === name)?.firstAttempt
    return this.serverStatus().find((s) => s.name === name)
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
      throw this.redactError(error)
    }
  }

  private async callPermittedTool(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<unknown> {
    const {tool, unknown} = lookupTool(this, name)
    if (!tool) throw this.missingToolError(name, unknown)
    const {supervisor} = this.index.get(name)!

    // Rule: invalid arguments never reach the server; unlisted ones are invalid too, and optional
    // ones passed as None are left out (SPEC §6).
    const prepared = prepareArguments(tool.inputSchema, args)
    args = prepared.args
    const problems =
      prepared.problems.length > 0 ? prepared.problems : this.validator.checkArguments(tool.inputSchema, args)
    if (problems.length > 0)
      throw new ToolError(`invalid arguments for ${name}: ${problems.join('; ')}`, {
        kind: 'invalid_arguments',
      })
    // Rule: a call the user did not approve never reaches the server either.
    if (options.approve) await options.approve(tool, args)

    let result: CallToolResult
    try {
      result = await supervisor.callTool(tool.tool, args, {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
      })
    } catch (error) {
      if (error instanceof ResultTooLargeError)
        throw new ToolError(tooLargeMessage(tool, error.bytes, options), {kind: 'too_large'})
      throw error
    }
    return this.checkResult(tool, result, options)
  }

  /** Closes every connection and stops retrying; stdio servers are shut down and waited for. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all(this.supervisors.map((s) => s.close()))
    this.index = new Map()
    this.sorted = []
    this.listeners.clear()
  }

  /** The error with the config's secrets taken out of its message (a server's error text may quote them). */
  private redactError(error: unknown): unknown {
    if (!(error instanceof Error)) return error
    const message = this.redactor.redact(error.message)
    if (message === error.message) return error
    return error instanceof ToolError
      ? new ToolError(message, {cause: error, kind: error.kind})
      : new Error(message, {cause: error})
  }

  private checkResult(tool: ToolInfo, result: CallToolResult, options: CallToolOptions): unknown {
    if (result.isError) throw new ToolError(toolErrorText(result))
    const {maxResultBytes} = options

    const size = resultSize(result, maxResultBytes)
    if (size > maxResultBytes) throw new ToolError(tooLargeMessage(tool, size, options), {kind: 'too_large'})
    options.onResultBytes?.(size)

    if (tool.outputSchema) {
      if (result.structuredContent === undefined) {
        throw new ToolError(`${tool.name} declares an outputSchema but returned no structured content`, {
          kind: 'schema_mismatch',
        })
      }
      const problems = this.validator.checkResult(tool.outputSchema, result.structuredContent)
      if (problems.length > 0) {
        throw new ToolError(
          `result of ${tool.name} does not match its outputSchema: ${problems.join('; ')}`,
          {
            kind: 'schema_mismatch',
          },
        )
      }
    }
    // Rule: the first result of a tool without an outputSchema in each run is described for
    // inspect_tool (SPEC §5); later ones are not looked at again.
    const describe = !tool.outputSchema && !this.shapes.recordedThisRun(tool)
    const shapeOptions = {samples: this.recordSamples}
    if (options.deferTextParsing) {
      const text = loneText(result)
      if (text !== undefined) {
        if (describe) this.shapes.record(tool, textShape(text, shapeOptions))
        return new JsonText(text)
      }
    }
    // Rule: media counts against max_tool_result_bytes with the text; what does not fit is a note (SPEC §6).
    const value = parseToolResult(result, {bytes: maxResultBytes - size, limit: maxResultBytes})
    if (describe) {
      const text = typeof value === 'string' ? value : undefined
      this.shapes.record(
        tool,
        text === undefined ? shapeOf(value, shapeOptions) : textShape(text, shapeOptions),
      )
    }
    return value
  }

  /** Unknown tool, or a tool of a server that is down (then the server and its reason are named). */
  private missingToolError(name: string, unknown: string): ToolError {
    const owner = this.supervisors
      .filter((s) => name.startsWith(`mcp__${normaliseName(s.name)}__`))
      .sort((a, b) => b.name.length - a.name.length)[0]
    if (owner && !owner.connected)
      return new ToolError(notConnectedMessage(owner.name, owner.reason), {kind: 'unavailable'})
    const unusable = this.unusable.find((s) => name.startsWith(`mcp__${normaliseName(s.name)}__`))
    if (!owner && unusable)
      return new ToolError(notConnectedMessage(unusable.name, unusable.reason), {kind: 'unavailable'})
    return new ToolError(unknown, {kind: 'unknown_tool'})
  }

  private rebuild(): void {
    const index = new Map<string, Entry>()
    const hidden = new Map<string, HiddenTool>()
    const offered: string[] = []
    for (const supervisor of this.supervisors) {
      for (const listed of supervisor.listTools()) {
        const tool = this.redactor.redactValue(listed)
        offered.push(tool.name)
        const reason = this.filter.hiddenBy(tool.name) ?? this.visibility?.hiddenBy(tool)
        if (reason !== undefined) {
          if (!hidden.has(tool.name)) hidden.set(tool.name, {tool, reason})
          continue
        }
        const existing = index.get(tool.name)
        if (existing) {
          // Possible only across servers (`a` + `x__y` vs `a__x` + `y`): the first configured wins.
          this.log.warn(
            `${tool.name} is offered by '${existing.supervisor.name}' and '${supervisor.name}'; using '${existing.supervisor.name}'`,
          )
          continue
        }
        index.set(tool.name, {tool, supervisor})
      }
    }
    this.index = index
    this.hidden = hidden
    this.offered = offered
    this.sorted = [...index.values()].map((e) => e.tool).sort(byName)
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

/** The one message for a result over `max_tool_result_bytes`, whether it was received or skipped on the wire. */
function tooLargeMessage(tool: ToolInfo, bytes: number, options: CallToolOptions): string {
  return (
    `result of ${tool.name} is ${formatBytes(bytes)}, over the ${formatBytes(options.maxResultBytes)} limit ` +
    `(execution.max_tool_result_bytes); ${LESS_DATA_HINT}`
  )
}

/** Code-point order, as Python's sorted() gives, whatever the locale. */
function byName(a: ToolInfo, b: ToolInfo): number {
  if (a.name === b.name) return 0
  return a.name < b.name ? -1 : 1
}

/**
 * Size of what the program would receive, in bytes: the text items, or the structured content when
 * it is larger (servers usually send both, the text being the JSON of the structure, so they are not
 * added up). Media is not counted here: parseToolResult fits it into what is left. Stops early once over `limit`.
 */
export function resultSize(result: CallToolResult, limit = Infinity): number {
  let textBytes = 0
  for (const item of result.content ?? []) {
    if (item.type === 'text') textBytes += Buffer.byteLength(item.text, 'utf8')
    if (textBytes > limit) return textBytes
  }
  if (result.structuredContent === undefined) return textBytes
  const structuredBytes = Buffer.byteLength(JSON.stringify(result.structuredContent) ?? '', 'utf8')
  return Math.max(textBytes, structuredBytes)
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`
}
