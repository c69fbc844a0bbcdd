import type {Transport} from '@modelcontextprotocol/server'

import {serveStdio as serveMcpStdio} from '@modelcontextprotocol/server/stdio'

import {defaultCatalogueDir} from '../downstream/index.js'
import {Runtime} from '../runtime.js'
import {CLIENT_MESSAGE_BYTES, UPSTREAM_INITIALIZE_WAIT_MS} from '../shared/limits.js'
import {createLogger, type Logger, type LogLevel} from '../shared/log.js'
import {createConfigErrorServer} from './config-error-server.js'
import {limitOutput, userOutputLimit} from './output-limit.js'
import {ServerCatalogue} from './server-catalogue.js'
import {createMcpServer} from './server.js'
import {JsonLinesServerTransport} from './stdio-transport.js'
import {UpstreamBridge} from './upstream-bridge.js'

export interface ServeOptions {
  /** `--config` flag value, if any. */
  configFlag?: string
  logLevel: LogLevel
  /** ptc-mcp's version, as the client is told. */
  version: string
}

/**
 * `ptc-mcp serve`: opens the runtime leniently, without loading the downstream code, and serves
 * until stdin closes or a signal arrives.
 */
export async function runServe(options: ServeOptions): Promise<void> {
  const logger = createLogger(options.logLevel)
  const upstream = new UpstreamBridge(logger.child('client'))
  // serve starts the downstream connections itself, once the client has said what it supports.
  const runtime = await Runtime.open({
    configFlag: options.configFlag,
    logger,
    lenient: true,
    upstream,
    connect: false,
    deferDownstream: true,
  })
  // The user's limit on one MCP answer (SPEC §5): programs' output is cut to fit it.
  limitOutput(runtime.config.execution, userOutputLimit(process.env, logger), logger)
  await serveStdio(runtime, runtime.logger, options.version, upstream)
}

/** Shown when serve is started on a terminal instead of by an MCP client. */
const TERMINAL_HINT =
  'ptc-mcp serve waits for an MCP client on stdin/stdout: Claude Code starts it (`ptc-mcp init` prints the line that registers it). To try a program here, use `ptc-mcp run FILE`. Ctrl-C stops it.'

/**
 * Serves the three tools over stdio, to 2025-era (initialize handshake) and 2026-07-28 clients
 * alike, until stdin closes or SIGINT/SIGTERM arrives; then kills every program child, closes the
 * downstream servers and resolves. stdout carries protocol messages only.
 */
export async function serveStdio(
  runtime: Runtime,
  logger: Logger,
  version: string,
  upstream?: UpstreamBridge,
): Promise<void> {
  const {configError} = runtime
  // What the last session knew of the servers: the instructions name them before they connect.
  const catalogue = configError
    ? undefined
    : await ServerCatalogue.load(runtime.config.servers, defaultCatalogueDir(), logger)
  const stopFollowing = catalogue?.follow(runtime.registry)
  // Programs of many megabytes arrive; a message over the limit gets a clear error, not a dropped connection.
  const transport = new JsonLinesServerTransport(process.stdin, process.stdout, {
    maxMessageBytes: CLIENT_MESSAGE_BYTES,
    logger,
    // A 2026-07-28 client never initializes: its first request says what it supports.
    onModernClient: upstream && ((capabilities) => upstream.attachModern(capabilities)),
  })
  const stopped = new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('stdin closed'))
    process.stdin.once('close', () => resolve('stdin closed'))
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  const createServer = configError
    ? () => createConfigErrorServer(configError, version)
    : () => createMcpServer(runtime, logger, version, {upstream, catalogue})
  const handle = serveMcpStdio(createServer, {
    transport,
    onerror: (error) => logger.warn(`protocol: ${error.message}`),
  })
  logger.info('serving on stdio')
  // Typed on a terminal, serve would seem to hang: say what it waits for (stderr: stdout is the protocol).
  if (process.stdin.isTTY) process.stderr.write(`${TERMINAL_HINT}\n`)
  // Clients give up on a slow first answer (SPEC §5): the program engine (Python, sandbox probe,
  // warm pool) and the downstream code load only once it is out, while the client is still starting.
  const warmUp = (): void => {
    if (configError) return
    runtime.engine().catch((error: unknown) => {
      // Stopped before it was ready (a client's health check): nothing to report.
      if (!runtime.closed) logger.warn(`programs cannot run yet: ${String(error)}`)
    })
  }
  const quiet = setTimeout(warmUp, UPSTREAM_INITIALIZE_WAIT_MS)
  quiet.unref()
  const firstAnswer = new Promise<void>((resolve) => {
    afterFirstAnswer(transport, resolve)
  })
  firstAnswer.then(
    () => {
      logger.debug('first request answered')
      clearTimeout(quiet)
      // Messages already read (tools/list after server/discover) are answered first.
      setImmediate(warmUp)
    },
    () => {},
  )
  if (upstream) {
    // Downstream servers are told what the client supports (elicitation, sampling), so they connect
    // once it has initialized (2025) or sent its first request (2026-07-28), after that request's
    // answer; a client that says nothing waits no longer than this.
    upstream.timeoutMs = runtime.permissions.approvalTimeoutMs
    let started = false
    const start = (): void => {
      if (started) return
      started = true
      logger.debug('connecting to the downstream servers')
      runtime.registry.start()
    }
    upstream.initialized.then(() => firstAnswer).then(start, () => {})
    setTimeout(start, UPSTREAM_INITIALIZE_WAIT_MS).unref()
  }

  logger.info(`shutting down (${await stopped})`)
  clearTimeout(quiet)
  stopFollowing?.()
  await Promise.allSettled([runtime.close(), handle.close()])
}

/** Calls `then` once, when the first message serve sends (the answer to the first request) is written. */
function afterFirstAnswer(transport: Transport, then: () => void): void {
  const send = transport.send.bind(transport)
  transport.send = async (message, options) => {
    await send(message, options)
    transport.send = send
    then()
  }
}
