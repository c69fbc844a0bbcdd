import type {ServerContext} from '@modelcontextprotocol/server'

import {performance} from 'node:perf_hooks'

import type {Logger} from '../shared/log.js'

import {counted} from '../shared/plural.js'

/** Clients with call timeouts reset them on progress; one every 10 s at the latest keeps long programs alive. */
export const HEARTBEAT_MS = 5000

/**
 * Tool calls completed are reported at most this often, with the latest count: a program may make
 * hundreds a second, and each notification is a write and a wake-up of the client.
 */
export const CALLS_PROGRESS_MS = 100

export interface ProgressReporter {
  toolCallsCompleted(count: number): void
  /** A tool call waits for `server` to finish starting, at most `waitMs`. */
  serverStarting(server: string, waitMs: number): void
  /** While the program waits for a slot: how many are ahead; undefined once it runs. */
  queued(ahead?: number): void
  stop(): void
}

const noop: ProgressReporter = {toolCallsCompleted() {}, serverStarting() {}, queued() {}, stop() {}}

/**
 * Progress notifications for one execute_program request, when the client sent a progress token:
 * the tool calls completed (at most one every CALLS_PROGRESS_MS, the last count sent before the
 * answer) and a heartbeat. MCP requires `progress` to increase with every
 * notification, so it counts notifications; the message says what happened.
 */
export function startProgress(ctx: ServerContext, logger: Logger): ProgressReporter {
  const token = ctx.mcpReq._meta?.progressToken
  if (token === undefined) return noop
  const started = Date.now()
  let sent = 0
  let completed = 0
  let ahead: number | undefined
  let stopped = false
  let callsSentAt = Number.NEGATIVE_INFINITY
  let callsTimer: NodeJS.Timeout | undefined
  const send = (message: string) => {
    if (stopped) return
    sent++
    ctx.mcpReq
      .notify({method: 'notifications/progress', params: {progressToken: token, progress: sent, message}})
      .catch((error: unknown) => logger.debug(`progress notification failed: ${String(error)}`))
  }
  const heartbeat = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000)
    if (ahead === undefined) send(`running for ${seconds}s; ${counted(completed, 'tool call')} completed`)
    else send(`waiting for ${seconds}s for a free slot; ${waitingText(ahead)}`)
  }, HEARTBEAT_MS)
  heartbeat.unref()
  const sendCalls = () => {
    clearTimeout(callsTimer)
    callsTimer = undefined
    callsSentAt = performance.now()
    send(`${counted(completed, 'tool call')} completed`)
  }
  return {
    toolCallsCompleted(count) {
      completed = count
      const wait = callsSentAt + CALLS_PROGRESS_MS - performance.now()
      if (wait <= 0) sendCalls()
      else callsTimer ??= setTimeout(sendCalls, wait)
    },
    serverStarting(server, waitMs) {
      send(`waiting for server '${server}' to finish starting (up to ${Math.ceil(waitMs / 1000)}s)`)
    },
    queued(count) {
      ahead = count
      if (count !== undefined)
        send(`waiting for a free slot (execution.max_concurrent_programs); ${waitingText(count)}`)
    },
    stop() {
      if (callsTimer) sendCalls()
      stopped = true
      clearInterval(heartbeat)
    },
  }
}

function waitingText(ahead: number): string {
  return ahead === 0 ? 'next in line' : `${ahead} ${ahead === 1 ? 'program' : 'programs'} ahead`
}
