import {serveStdio as serveMcpStdio} from '@modelcontextprotocol/server/stdio'

import type {Logger} from '../log.js'
import type {Runtime} from '../runtime.js'
import type {UpstreamBridge} from './upstream-bridge.js'

import {CLIENT_MESSAGE_BYTES} from '../limits.js'
import {createConfigErrorServer} from './config-error-server.js'
import {createMcpServer} from './server.js'
import {JsonLinesServerTransport} from './stdio-transport.js'

/** How long downstream servers wait for the client's `initialized` before connecting anyway. */
const UPSTREAM_INITIALIZE_WAIT_MS = 1000

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
  const {configError} = runtime
  const createServer = configError
    ? () => createConfigErrorServer(configError, version)
    : () => createMcpServer(runtime, logger, version, upstream)
  const handle = serveMcpStdio(createServer, {
    transport,
    onerror: (error) => logger.warn(`protocol: ${error.message}`),
  })
  logger.info('serving on stdio')
  // Typed on a terminal, serve would seem to hang: say what it waits for (stderr: stdout is the protocol).
  if (process.stdin.isTTY) process.stderr.write(`${TERMINAL_HINT}\n`)
  if (upstream) {
    // Downstream servers are told what the client supports (elicitation, sampling), so they connect
    // once it has initialized; a client that does not initialize (2026-07-28) waits no longer than this.
    upstream.timeoutMs = runtime.permissions.approvalTimeoutMs
    const start = (): void => runtime.registry.start()
    upstream.initialized.then(start, () => {})
    setTimeout(start, UPSTREAM_INITIALIZE_WAIT_MS).unref()
  }
  // Start the program engine (Python, sandbox probe, warm pool) while the client is still starting.
  if (!configError)
    runtime.engine().catch((error: unknown) => {
      // Stopped before it was ready (a client's health check): nothing to report.
      if (!runtime.closed) logger.warn(`programs cannot run yet: ${String(error)}`)
    })

  logger.info(`shutting down (${await stopped})`)
  await Promise.allSettled([runtime.close(), handle.close()])
}
