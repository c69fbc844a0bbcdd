import type {TokenStore} from '../../oauth/store.js'
import type {Logger} from '../../shared/log.js'
import type {TransportFactory} from '../transport/server-transport.js'
import type {BackoffOptions} from './backoff.js'
import type {UpstreamClient} from './upstream.js'

/** How a ServerSupervisor (supervisor.ts) is set up; every field but the logger has a default. */
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
  /** Makes the transport of each attempt. Default: the server's own (stdio, streamable HTTP or SSE by the config). */
  createTransport?: TransportFactory
}
