import {Runtime} from '../runtime.js'
import {CLI_CONNECT_WAIT_MS} from '../shared/limits.js'
import {createLogger, type LogLevel} from '../shared/log.js'

/** Opens the runtime for a one-shot command and waits for every server's first attempt. */
export async function openConnectedRuntime(
  configFlag: string | undefined,
  level: LogLevel,
): Promise<Runtime> {
  const runtime = await Runtime.open({configFlag, logger: createLogger(level)})
  await runtime.registry.waitForInitialConnections(CLI_CONNECT_WAIT_MS)
  return runtime
}
