import {Listr, ListrLogger, ProcessOutput} from 'listr2'

import type {ConnectFailure, ToolRegistry} from '../downstream/index.js'

import {counted} from '../shared/plural.js'
import {formatSeconds} from '../shared/seconds.js'
import {ensureTerminalWidth} from './terminal-width.js'

/**
 * Shows each downstream server connecting, on stderr, until its first attempt ends (or the bound
 * passes). Silent when stderr is not a terminal or output is JSON: then it only waits.
 */
export async function showConnectProgress(
  registry: ToolRegistry,
  waitMs: number,
  quiet: boolean,
  stopped?: AbortSignal,
): Promise<void> {
  const servers = registry.serverStatus()
  if (quiet || !process.stderr.isTTY || servers.length === 0) {
    await registry.waitForInitialConnections(waitMs)
    return
  }
  ensureTerminalWidth()
  const tasks = new Listr(
    servers.map((server) => ({
      title: connectingTitle(server.name, server.transport, registry.connectTimeoutMs(server.name)),
      async task(_ctx: unknown, task: {title: string; skip(message: string): void}) {
        const status = await registry.firstAttempt(server.name)
        if (status?.connected) task.title = `${server.name}: ${counted(status.tools, 'tool')}`
        else if (stopped?.aborted) task.skip(`${server.name}: still connecting when Ctrl-C stopped the run`)
        else task.skip(unavailableLine(server.name, status?.lastError, registry.connectFailure(server.name)))
      },
    })),
    {
      concurrent: true,
      exitOnError: false,
      // listr2's own Ctrl-C handler exits 127 at once, skipping the command's cancel and cleanup.
      registerSignalListeners: false,
      rendererOptions: {
        logger: new ListrLogger({processOutput: new ProcessOutput(process.stderr, process.stderr)}),
      },
    },
  )
  await tasks.run()
}

/** `Connecting to fs (stdio, up to 120s)`: the server, and how long its first attempt may take. */
export function connectingTitle(name: string, transport: string, timeoutMs: number | undefined): string {
  return `Connecting to ${name} (${transport}${timeoutMs === undefined ? '' : `, up to ${formatSeconds(timeoutMs)}`})`
}

/** Why a server is unavailable; after a timeout, with the fix (a first start may need a longer one). */
export function unavailableLine(
  name: string,
  lastError: null | string | undefined,
  failure: ConnectFailure | null,
): string {
  const line = `${name}: unavailable (${lastError ?? 'still connecting'})`
  return failure?.kind === 'timeout' ? `${line}: ${failure.fix}` : line
}
