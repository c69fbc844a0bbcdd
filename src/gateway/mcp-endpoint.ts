import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import {randomUUID} from 'node:crypto'

import type {Caller} from '../mcp/caller.js'
import type {ServerCatalogue} from '../mcp/server-catalogue.js'
import type {Runtime} from '../runtime.js'
import type {Logger} from '../shared/log.js'
import type {GatewayMetrics} from './metrics.js'
import type {PrincipalLimits} from './principal-limits.js'
import type {PausedRegistry, StateStore} from './state-store.js'

import {createMcpServer} from '../mcp/server.js'
import {CLIENT_MESSAGE_BYTES} from '../shared/limits.js'
import {forwardResume} from './forward.js'

/** 2025-era sessions kept at once; beyond it, the one unused longest is closed. */
export const MAX_SESSIONS = 1024

/** A 2025-era client's MCP session (`Mcp-Session-Id`): not the state it keeps, not a sandbox. */
interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport
  server: McpServer
  principal: string
}

export interface EndpointOptions {
  runtime: Runtime
  logger: Logger
  version: string
  store: StateStore
  metrics: GatewayMetrics
  /** Each principal's share: programs at once, programs a minute. */
  limits: PrincipalLimits
  /** The downstream servers, for the instructions (SPEC §5). */
  catalogue?: ServerCatalogue
  /** Where paused programs are, shared by replicas (Redis); absent for one replica. */
  paused?: PausedRegistry
}

/**
 * `/mcp` of the gateway (SPEC §18), both protocol eras. 2026-07-28 requests are stateless: each is
 * served by a fresh server instance for its principal. 2025-era clients open a session
 * (`Mcp-Session-Id`), served by one instance for its life; a session belongs to the principal that
 * opened it, and another's request naming it is answered as for an unknown session.
 */
export class McpEndpoint {
  private readonly modern: McpHttpHandler
  /** In order of last use. */
  private readonly sessions = new Map<string, McpSession>()
  /** This replica's address, as the others reach it (known once it listens). */
  self = ''

  constructor(private readonly options: EndpointOptions) {
    this.modern = createMcpHandler((ctx) => this.createServer(ctx.authInfo?.clientId ?? ''), {
      legacy: 'reject',
      maxRequestBodySize: CLIENT_MESSAGE_BYTES,
      onerror: (error) => options.logger.debug(`mcp: ${error.message}`),
    })
  }

  async handle(request: Request, principal: string): Promise<Response> {
    const authInfo: AuthInfo = {token: '', clientId: principal, scopes: []}
    const legacy = await isLegacyRequest(request, undefined, {maxRequestBodySize: CLIENT_MESSAGE_BYTES})
    if (!legacy) {
      const forwarded = this.options.paused && (await forwardResume(request, this.options.paused, this.self))
      return forwarded ?? this.modern.fetch(request, {authInfo})
    }
    const id = request.headers.get('mcp-session-id')
    if (id !== null) {
      const session = this.sessions.get(id)
      if (!session || session.principal !== principal) return sessionNotFound()
      this.sessions.delete(id)
      this.sessions.set(id, session)
      return session.transport.handleRequest(request, {authInfo})
    }
    return this.openSession(request, principal, authInfo)
  }

  /** Open 2025-era sessions. */
  get sessionCount(): number {
    return this.sessions.size
  }

  async close(): Promise<void> {
    const sessions = [...this.sessions.values()]
    this.sessions.clear()
    await Promise.allSettled([this.modern.close(), ...sessions.map((session) => session.server.close())])
  }

  private async openSession(request: Request, principal: string, authInfo: AuthInfo): Promise<Response> {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: CLIENT_MESSAGE_BYTES,
      onsessioninitialized: (id) => {
        this.sessions.set(id, {transport, server, principal})
        this.evict()
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id)
      },
    })
    const server = this.createServer(principal, () => transport.sessionId)
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    const response = await transport.handleRequest(request, {authInfo})
    // Not an initialize: no session was opened, and nothing stays.
    if (transport.sessionId === undefined) await server.close()
    return response
  }

  private evict(): void {
    while (this.sessions.size > MAX_SESSIONS) {
      const [oldest, session] = this.sessions.entries().next().value as [string, McpSession]
      this.sessions.delete(oldest)
      session.server.close().catch(() => {})
    }
  }

  private createServer(principal: string, session?: () => string | undefined): McpServer {
    const {runtime, logger, version, catalogue} = this.options
    return createMcpServer(runtime, logger, version, {catalogue, caller: this.caller(principal, session)})
  }

  /** What the principal's programs keep, and the metrics they count. */
  private caller(principal: string, session?: () => string | undefined): Caller {
    const {store, metrics, paused, runtime, limits} = this.options
    const pauseSeconds = Math.ceil(runtime.permissions.approvalTimeoutMs / 1000)
    // A principal from a token may hold ':': encoded, it cannot, so `alice` and `alice:<session>` never collide.
    const name = encodeURIComponent(principal)
    const owner = () => (session ? `${name}:${session() ?? ''}` : name)
    const starts: number[] = []
    return {
      principal,
      state: () => store.open(owner()),
      scope: owner,
      async admit() {
        const refused = await limits.admit(principal)
        if (refused !== undefined) metrics.limited()
        return refused
      },
      onStart() {
        starts.push(Date.now())
        metrics.started()
      },
      async onEnd(outcome) {
        limits.release(principal)
        await store.flush()
        metrics.finished(outcome, Date.now() - (starts.shift() ?? Date.now()))
      },
      onPaused: async (requestState) => {
        await paused?.register(requestState, this.self, pauseSeconds)
      },
    }
  }
}

function sessionNotFound(): Response {
  return Response.json(
    {jsonrpc: '2.0', id: null, error: {code: -32_001, message: 'Session not found: initialize a new one'}},
    {status: 404},
  )
}
