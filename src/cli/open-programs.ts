import type {SavedPrograms} from '../programs/saved-programs.js'

import {Runtime} from '../runtime.js'
import {CLI_CONNECT_WAIT_MS} from '../shared/limits.js'
import {createLogger, type LogLevel} from '../shared/log.js'

/**
 * The runtime of a `programs` command and its saved programs. Servers are connected only when
 * `connect` (a live test); otherwise none is contacted.
 */
export async function openPrograms(
  configFlag: string | undefined,
  level: LogLevel,
  connect = false,
): Promise<{runtime: Runtime; programs: SavedPrograms}> {
  const runtime = await Runtime.open({configFlag, logger: createLogger(level), connect})
  try {
    if (connect) await runtime.registry.waitForInitialConnections(CLI_CONNECT_WAIT_MS)
    return {runtime, programs: await runtime.programs()}
  } catch (error) {
    await runtime.close()
    throw error
  }
}
