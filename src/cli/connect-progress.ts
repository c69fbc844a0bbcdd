import {Listr, ListrLogger, ProcessOutput} from 'listr2'

import type {ToolRegistry} from '../downstream/registry.js'
import type {ServerStatus} from '../downstream/types.js'

const settled = (s: ServerStatus | undefined) => s === undefined || s.connected || s.attempts > 0

/**
 * Shows each downstream server connecting, on stderr, until its first attempt ends (or the bound
 * passes). Silent when stderr is not a terminal or output is JSON: then it only waits.
 */
export async function showConnectProgress(registry: ToolRegistry, waitMs: number, quiet: boolean): Promise<void> {
  const servers = registry.serverStatus()
  if (quiet || !process.stderr.isTTY || servers.length === 0) {
    await registry.waitForInitialConnections(waitMs)
    return
  }
  const statusOf = (name: string) => registry.serverStatus().find((s) => s.name === name)
  // Resolves when the server's first attempt ends, or when the overall bound passes.
  const firstAttempt = (name: string) =>
    new Promise<ServerStatus | undefined>((resolve) => {
      const finish = () => {
        unsubscribe()
        resolve(statusOf(name))
      }
      const unsubscribe = registry.onChange(() => settled(statusOf(name)) && finish())
      if (settled(statusOf(name))) finish()
      else void registry.waitForInitialConnections(waitMs).then(finish)
    })
  const tasks = new Listr(
    servers.map((server) => ({
      title: `Connecting to ${server.name} (${server.transport})`,
      task: async (_ctx: unknown, task: {title: string; skip(message: string): void}) => {
        const status = await firstAttempt(server.name)
        if (status?.connected) task.title = `${server.name}: ${status.tools} tools`
        else task.skip(`${server.name}: unavailable (${status?.lastError ?? 'still connecting'})`)
      },
    })),
    {concurrent: true, exitOnError: false, rendererOptions: {logger: new ListrLogger({processOutput: new ProcessOutput(process.stderr, process.stderr)})}},
  )
  await tasks.run()
}
