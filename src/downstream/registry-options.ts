// How a ToolRegistry (registry.ts) is made and what it reports beyond a ToolHost: its options, what
// it needs of the permission rules, its per-server status.
import type {UnusableServer} from '../config/degrade.js'
import type {Config} from '../config/schema.js'
import type {Logger} from '../shared/log.js'
import type {BackoffOptions} from './connection/backoff.js'
import type {Redactor} from './connection/redactor.js'
import type {UpstreamClient} from './connection/upstream.js'
import type {TransportFactory} from './transport/server-transport.js'
import type {ServerStatus, ToolInfo} from './types.js'

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

/** What the registry needs of the permission rules: `PermissionPolicy` implements it. */
export interface ToolVisibility {
  /** Why the tool is hidden (for the CLI), or undefined. */
  hiddenBy(tool: ToolInfo): string | undefined
  /** What makes a hidden tool callable (the rule and its file). */
  unhideFix?(tool: ToolInfo): string | undefined
  /** Whether calls to the tool ask the user first, and why (for inspect_tool and list), or undefined. */
  approvalNote(tool: ToolInfo): string | undefined
  onChange(listener: () => void): () => void
}

/** `ServerStatus` plus name clashes among the server's tools, when there are any. */
export interface DownstreamServerStatus extends ServerStatus {
  warnings?: string[]
}

export type RegistryConfig = Partial<Pick<Config, 'tools' | 'execution'>> & Pick<Config, 'servers'>
