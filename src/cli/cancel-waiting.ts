/**
 * What a Ctrl-C in `run` stopped waiting for, said after `[Script execution cancelled]`: the
 * servers still connecting, or the tool calls still running. A slow server is then named as what
 * was waited for, not reported as failed.
 */
import type {DownstreamServerStatus} from '../downstream/index.js'
import type {ToolCallTrace} from '../execution/index.js'

import {ENDED_BEFORE_FINISH} from '../execution/index.js'
import {formatSeconds} from '../shared/seconds.js'

/** `stopped while waiting for slow to connect (4s, of up to 60s): nothing ran`, or undefined. */
export function serversWaitedFor(
  statuses: readonly DownstreamServerStatus[],
  timeoutMs: (name: string) => number | undefined,
  now = Date.now(),
): string | undefined {
  const waited = statuses
    .filter((status) => !status.connected && status.starting !== undefined)
    .map((status) => {
      const upTo = timeoutMs(status.name)
      const since = formatSeconds(Math.max(0, Math.round((now - Date.parse(status.since)) / 1000) * 1000))
      return `${status.name} to connect (${since}${upTo === undefined ? '' : `, of up to ${formatSeconds(upTo)}`})`
    })
  return waited.length === 0 ? undefined : `stopped while waiting for ${waited.join(', ')}: nothing ran`
}

/** `stopped while waiting for mcp__fx__hang (1.6s)`: the calls still running when the program ended. */
export function callsWaitedFor(calls: readonly ToolCallTrace[]): string | undefined {
  const running = calls.filter((call) => !call.ok && call.error === ENDED_BEFORE_FINISH)
  if (running.length === 0) return undefined
  return `stopped while waiting for ${running.map((call) => `${call.tool} (${formatSeconds(Math.round(call.ms / 100) * 100)})`).join(', ')}`
}
