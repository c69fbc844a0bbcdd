import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {hostname} from 'node:os'

import type {ProgramEngine} from '../execution/index.js'
import type {PausedRegistry, StateStore} from './state-store.js'

import {defaultCatalogueDir} from '../downstream/index.js'
import {ServerCatalogue} from '../mcp/server-catalogue.js'
import {Runtime} from '../runtime.js'
import {PtcError} from '../shared/errors.js'
import {CLIENT_MESSAGE_BYTES} from '../shared/limits.js'
import {createLogger, type Logger, type LogLevel} from '../shared/log.js'
import {GatewayAuth, isLoopbackHost} from './auth.js'
import {McpEndpoint} from './mcp-endpoint.js'
import {GatewayMetrics} from './metrics.js'
import {sendWebResponse, textResponse, toWebRequest} from './node-http.js'
import {MemoryStartCounter, PrincipalLimits, type StartCounter} from './principal-limits.js'
import {MemoryStateStore} from './state-store.js'

export interface GatewayOptions {
  configFlag?: string
  logLevel: LogLevel
  version: string
  host: string
  port: number
}

/** Who calls when no authentication is configured (loopback only). */
const LOCAL_PRINCIPAL = 'local'

/**
 * `ptc-mcp serve --http` (SPEC §18): the team gateway. Serves `/mcp` (both eras), `/healthz`,
 * `/readyz` and `/metrics` until SIGINT or SIGTERM; then takes no more work, lets running programs
 * finish within gateway.shutdown_seconds, and closes. Prints where it listens on stderr.
 */
export async function runGateway(options: GatewayOptions): Promise<void> {
  const runtime = await Runtime.open({configFlag: options.configFlag, logger: createLogger(options.logLevel)})
  const {logger} = runtime
  let gateway: Gateway | undefined
  try {
    gateway = await Gateway.start(runtime, options)
    process.stderr.write(`ptc-mcp gateway listening on ${gateway.url}/mcp\n`)
    const signal = await new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'))
      process.once('SIGTERM', () => resolve('SIGTERM'))
    })
    logger.info(`shutting down (${signal})`)
  } finally {
    await gateway?.stop()
    await runtime.close()
  }
}

interface GatewayParts {
  runtime: Runtime
  server: Server
  auth: GatewayAuth
  store: StateStore
  endpoint: McpEndpoint
  metrics: GatewayMetrics
  url: string
}

class Gateway {
  private engine: ProgramEngine | undefined
  private draining = false

  private readonly runtime: Runtime
  private readonly server: Server
  private readonly auth: GatewayAuth
  private readonly store: StateStore
  private readonly endpoint: McpEndpoint
  private readonly metrics: GatewayMetrics
  readonly url: string

  private constructor(parts: GatewayParts) {
    this.runtime = parts.runtime
    this.server = parts.server
    this.auth = parts.auth
    this.store = parts.store
    this.endpoint = parts.endpoint
    this.metrics = parts.metrics
    this.url = parts.url
  }

  static async start(runtime: Runtime, options: GatewayOptions): Promise<Gateway> {
    const {gateway} = runtime.config
    const auth = GatewayAuth.fromConfig(gateway.auth, process.env, runtime.logger.child('auth'))
    if (!auth.configured && !isLoopbackHost(options.host)) {
      throw new PtcError('USAGE', `listening on ${options.host} (beyond loopback) needs authentication`, {
        suggestion:
          'add gateway.auth.bearer: [{principal: alice, token: "${ALICE_TOKEN}"}] or gateway.auth.oauth to the config, or listen on --host 127.0.0.1',
      })
    }
    const store = await openStore(runtime, runtime.logger)
    const metrics = new GatewayMetrics()
    // The servers' catalogue in the instructions, as stdio serve gives it (SPEC §5).
    const catalogue = await ServerCatalogue.load(
      runtime.config.servers,
      defaultCatalogueDir(),
      runtime.logger,
    )
    catalogue.follow(runtime.registry)
    const endpoint = new McpEndpoint({
      runtime,
      logger: runtime.logger,
      version: options.version,
      store,
      metrics,
      catalogue,
      limits: new PrincipalLimits(
        gateway.per_principal,
        'countStart' in store ? (store as StartCounter & StateStore) : new MemoryStartCounter(),
        runtime.logger,
      ),
      paused: 'ownerOf' in store ? (store as PausedRegistry & StateStore) : undefined,
    })
    const server = createServer()
    const address = await listen(server, options.host, options.port)
    const host = options.host.includes(':') ? `[${options.host}]` : options.host
    const url = `http://${advertised(host)}:${address}`
    endpoint.self = url
    const started = new Gateway({runtime, server, auth, store, endpoint, metrics, url})
    server.on('request', (req, res) => started.serve(req, res))
    started.warmUp()
    return started
  }

  /** Stops taking work, waits for running programs (bounded), then closes everything. */
  async stop(): Promise<void> {
    this.draining = true
    this.server.close()
    this.server.closeIdleConnections()
    const deadline = Date.now() + this.runtime.config.gateway.shutdown_seconds * 1000
    while (this.metrics.running > 0 && Date.now() < deadline) await sleep(100)
    if (this.metrics.running > 0)
      this.runtime.logger.warn(`${this.metrics.running} programs still running at shutdown: they are ended`)
    await this.endpoint.close()
    await this.store.close()
    this.server.closeAllConnections()
  }

  private warmUp(): void {
    this.runtime.engine().then(
      (engine) => {
        this.engine = engine
      },
      (error: unknown) => {
        if (!this.runtime.closed) this.runtime.logger.warn(`programs cannot run yet: ${String(error)}`)
      },
    )
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    this.answer(req, res)
      .then((response) => sendWebResponse(res, response))
      .catch((error: unknown) => {
        this.runtime.logger.warn(`http: ${String(error)}`)
        if (!res.headersSent) res.writeHead(500)
        res.end()
      })
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<Response> {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    if (path === '/healthz') return textResponse(200, 'ok\n')
    if (path === '/readyz') return this.readiness()
    if (path === '/metrics') return this.metricsText(req)
    if (this.auth.jwt?.servesMetadataAt(path)) return Response.json(this.auth.jwt.metadata())
    if (path !== '/mcp') return textResponse(404, 'not found: the MCP endpoint is /mcp\n')
    const response = await this.mcp(req, res)
    this.metrics.answered(response.status)
    return response
  }

  private async mcp(req: IncomingMessage, res: ServerResponse): Promise<Response> {
    // Nothing is read or run before the caller is known.
    const principal = await this.principalOf(req)
    if (typeof principal !== 'string') return principal
    if (this.draining)
      return textResponse(503, 'this gateway replica is shutting down: send it to another one\n')
    const request = await toWebRequest(req, res, CLIENT_MESSAGE_BYTES)
    if (request === 'too large')
      return textResponse(413, `the request is over ${CLIENT_MESSAGE_BYTES} bytes\n`)
    return this.endpoint.handle(request, principal)
  }

  /** The caller's principal, or the 401 that refuses them. */
  private async principalOf(req: IncomingMessage): Promise<Response | string> {
    if (!this.auth.configured) return LOCAL_PRINCIPAL
    const authentication = await this.auth.authenticate(req.headers.authorization)
    if ('principal' in authentication) return authentication.principal
    return this.auth.refuse(authentication)
  }

  /** Prometheus text; with gateway.metrics_auth, only for a token of gateway.auth. */
  private async metricsText(req: IncomingMessage): Promise<Response> {
    if (this.runtime.config.gateway.metrics_auth) {
      const principal = await this.principalOf(req)
      if (typeof principal !== 'string') return principal
    }
    return textResponse(200, this.metrics.text(this.engine?.queued ?? 0), 'text/plain; version=0.0.4')
  }

  /** 200 once programs can run, the store answers and every server is connected; else 503 and why. */
  private readiness(): Response {
    const problems: string[] = []
    if (this.draining) problems.push('shutting down')
    if (this.engine === undefined) {
      problems.push('the program engine is starting (Python, the sandbox check)')
      this.warmUp()
    }
    if (!this.store.ready()) problems.push('the state store is not connected')
    for (const server of this.runtime.registry.unavailableServers())
      problems.push(`server ${server.name}: ${server.starting ? 'starting' : server.reason}`)
    return problems.length === 0
      ? textResponse(200, 'ready\n')
      : textResponse(503, `not ready: ${problems.join('; ')}\n`)
  }
}

async function openStore(runtime: Runtime, logger: Logger): Promise<StateStore> {
  const {gateway, state} = runtime.config
  if (gateway.store === 'memory') return new MemoryStateStore(state, gateway.state_idle_seconds * 1000)
  // ${VAR} in gateway.store is expanded with the config (config/expand.ts).
  const {RedisStateStore} = await import('./redis-store.js')
  try {
    return await RedisStateStore.connect(
      gateway.store,
      state,
      gateway.state_idle_seconds,
      logger.child('store'),
    )
  } catch (error) {
    throw new PtcError('CONFIG_INVALID', `gateway.store: cannot reach Redis (${(error as Error).message})`, {
      suggestion: 'start Redis, or check the host and port of gateway.store',
    })
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new PtcError('USAGE', `cannot listen on ${host}:${port}: ${error.code ?? error.message}`, {
          suggestion: 'choose another --port, or stop what holds it',
        }),
      ),
    )
    server.listen(port, host, () => {
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    })
  })
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, ms)
  })
}

/** How other replicas reach this one: its host, or this machine's name when it listens on all. */
function advertised(host: string): string {
  return host === '0.0.0.0' || host === '[::]' ? hostname() : host
}
