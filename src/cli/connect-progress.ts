import {Listr, ListrLogger, ProcessOutput} from 'listr2'

import type {ToolRegistry} from '../downstream/registry.js'

import {counted} from '../shared/plural.js'
import {ensureTerminalWidth} from './terminal-width.js'

/**
 * Shows each downstream server connecting, on stderr, until its first attempt ends (or the bound
 * passes). Silent when stderr is not a terminal or output is JSON: then it only waits.
 */
export async function showConnectProgress(
  registry: ToolRegistry,
  waitMs: number,
  quiet: boolean,
): Promise<void> {
  const servers = registry.serverStatus()
  if (quiet || !process.stderr.isTTY || servers.length === 0) {
    await registry.waitForInitialConnections(waitMs)
    return
  }
  ensureTerminalWidth()
  const tasks = new Listr(
    servers.map((server) => ({
      title: `Connecting to ${server.name} (${server.transport})`,
      async task(_ctx: unknown, task: {title: string; skip(message: string): void}) {
        const status = await registry.firstAttempt(server.name)
        if (status?.connected) task.title = `${server.name}: ${counted(status.tools, 'tool')}`
        else task.skip(`${server.name}: unavailable (${status?.lastError ?? 'still connecting'})`)
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
