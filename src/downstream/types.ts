import type {TransportKind} from '../config/schema.js'

/** A downstream tool as programs see it. */
export interface ToolInfo {
  /** Namespaced name: mcp__<server>__<tool>, normalised. */
  name: string
  /** The config name of the server that provides it. */
  server: string
  /** The tool's own name on that server. */
  tool: string
  description: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  /** The hints the permission rules read (SPEC §12); absent when the server declares neither. */
  annotations?: ToolHints
}

/** A tool a connected server offers that `tools.allow` / `tools.block` or a Claude Code deny rule hides. */
export interface HiddenTool {
  tool: ToolInfo
  /** `hidden by tools.block ("mcp__x__get-env")`, for the CLI. */
  reason: string
  /**
   * Whether a program is told why (a Claude Code deny rule, the user's own refusal); tools.allow /
   * tools.block curate what exists, so a program is told only that the tool does not (SPEC §4).
   */
  told: boolean
  /** What makes it callable, in one line. */
  fix: string
}

export interface ToolHints {
  destructiveHint?: boolean
  readOnlyHint?: boolean
  /** The tool reaches outside (SPEC §12.1: an external sink unless flows.trust_open_world). */
  openWorldHint?: boolean
}

/** What `server_status()` and `list` report per server (SPEC §4). */
export interface ServerStatus {
  name: string
  transport: TransportKind
  connected: boolean
  /** Tools registered from this server (after allow/block filtering). */
  tools: number
  lastError: string | null
  /** Connection attempts since the last successful connection (0 while connected). */
  attempts: number
  /** ISO time of the last change of `connected`. */
  since: string
  /** On its first attempt: "starting for 4s, calls wait up to 30s" (a call to it waits). */
  starting?: string
}

/** `starting for 4s, calls wait up to 30s`: a server on its first attempt, in server_status() and list_callable_tools. */
export function startingText({forMs, upToMs}: {forMs: number; upToMs: number}): string {
  return `starting for ${Math.round(forMs / 1000)}s, calls wait up to ${Math.round(upToMs / 1000)}s`
}

export interface UnavailableServer {
  name: string
  reason: string
  /** Set while the server is on its first attempt: a call to it waits for it. */
  starting?: {forMs: number; upToMs: number}
  /** Its config entry cannot be used as written: never started, never retried. */
  unusable?: true
}

/** What went wrong with a tool call: Python's `ToolError.kind` (SPEC §6). */
export const TOOL_ERROR_KINDS = [
  'tool_error',
  'invalid_arguments',
  'unknown_tool',
  'unavailable',
  'timeout',
  'budget',
  'too_large',
  'schema_mismatch',
  'denied',
  'protocol',
  // Over a bound of the state between programs (SPEC §6.2): the kind is the config key.
  'max_bytes',
  'max_value_bytes',
  'max_keys',
] as const
export type ToolErrorKind = (typeof TOOL_ERROR_KINDS)[number]

/**
 * A failure the program can act on. Raised inside the program as Python `ToolError`, with this
 * message, which says what to do next, and this kind (default `tool_error`: the server said so).
 */
export class ToolError extends Error {
  readonly kind: ToolErrorKind
  constructor(message: string, options?: {cause?: unknown; kind?: ToolErrorKind}) {
    super(message, options)
    this.name = 'ToolError'
    this.kind = options?.kind ?? 'tool_error'
  }
}

/**
 * A result too large even to be received: the transport skipped it (counted, not kept) and failed
 * its call only, so the connection and every other call on it go on (SPEC §15).
 */
export class ResultTooLargeError extends ToolError {
  constructor(
    /** Size of the message that carried it. */
    readonly bytes: number,
    options?: {cause?: unknown},
  ) {
    super(`the result is a message of ${bytes} bytes, too large to receive`, {...options, kind: 'too_large'})
  }
}

export interface CallToolOptions {
  signal?: AbortSignal
  /** Per-call limit (execution.tool_call_timeout_seconds). */
  timeoutMs: number
  /** Largest accepted result (execution.max_tool_result_bytes). */
  maxResultBytes: number
  /**
   * Return a result that is exactly one text item as `JsonText`, unparsed, for the program's child
   * to parse. Default false (the value is parsed here).
   */
  deferTextParsing?: boolean
  /** Told the size of each result that reaches the program (text or structured, as counted for the limit). */
  onResultBytes?: (bytes: number) => void
  /**
   * Called once the arguments are valid, before anything is sent: the user's approval (SPEC §12).
   * Throwing (ToolError kind `denied`) stops the call. Default: none.
   */
  approve?: (tool: ToolInfo, args: Record<string, unknown>) => Promise<void>
  /** Told when the call waits for its server to finish starting: the server and the longest wait (ms). */
  onServerWait?: (server: string, waitMs: number) => void
}

/**
 * A tool result that is one text item, passed on unparsed: its value is the text's JSON when it
 * parses, else the text itself (SPEC §6). The program's child parses it, so a result of many
 * megabytes is neither parsed nor serialised again in the server, and crosses the channel once,
 * unescaped.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** What the execution engine needs from the downstream side. `ToolRegistry` implements it. */
export interface ToolHost {
  listTools(): ToolInfo[]
  getTool(name: string): ToolInfo | undefined
  /** Whether calls to the tool ask the user first, and why (SPEC §12); undefined when they do not. */
  approvalNote?(tool: ToolInfo): string | undefined
  /** Why a tool a connected server offers is hidden, when a rule hides it. */
  hiddenTool?(name: string): HiddenTool | undefined
  unavailableServers(): UnavailableServer[]
  serverStatus(): ServerStatus[]
  /** Validates args against inputSchema, calls, checks size and outputSchema, parses (SPEC §6). Throws ToolError. */
  callTool(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<unknown>
  /** The shape of the results seen for a tool without an outputSchema, when it has returned before. */
  observedResult?(name: string): unknown
  /** Resolves when every server has finished its first connection attempt, or after timeoutMs. */
  waitForInitialConnections(timeoutMs: number): Promise<void>
}
