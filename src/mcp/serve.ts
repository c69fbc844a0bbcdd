import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'

import {MAX_TOOL_RESULT_CEILING} from '../config/schema.js'
import type {Logger} from '../log.js'
import type {Runtime} from '../runtime.js'
import {createMcpServer} from './server.js'

/**
 * Serves the three tools over stdio until stdin closes or SIGINT/SIGTERM arrives; then kills every
 * program child, closes downstream servers and resolves. stdout carries protocol messages only.
 */
export async function serveStdio(runtime: Runtime, logger: Logger, version: string): Promise<void> {
  const server = createMcpServer(runtime, logger, version)
  // Programs of many megabytes get a clear error from the tool rather than a dropped connection.
  const transport = new StdioServerTransport(process.stdin, process.stdout, {maxBufferSize: MAX_TOOL_RESULT_CEILING})
  await server.connect(transport)

  const stopped = new Promise<string>((resolve) => {
    // The SDK owns the transport's callbacks after connect: chain ours after its own.
    const sdkOnClose = transport.onclose
    transport.onclose = () => {
      sdkOnClose?.()
      resolve('transport closed')
    }
    process.stdin.once('end', () => resolve('stdin closed'))
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  logger.info('serving on stdio')
  // Start the program engine (Python, sandbox probe, warm pool) while the client is still starting.
  runtime.engine().catch((error: unknown) => logger.warn(`programs cannot run yet: ${String(error)}`))

  logger.info(`shutting down (${await stopped})`)
  await Promise.allSettled([runtime.close(), server.close()])
}
