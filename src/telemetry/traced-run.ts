import type {TelemetryConfig} from '../config/schema.js'
import type {ToolHost} from '../downstream/index.js'
import type {ProgramEngine, RunOutcome} from '../execution/index.js'
import type {ProgramSpan} from './types.js'

import {parseTraceparent, withTraceparent} from '../shared/trace-context.js'
import {programTracer} from './tracer.js'

type Run = ProgramEngine['run']

export interface TraceRequest {
  telemetry: TelemetryConfig
  /** The tools a run calls when its options name none (the engine's host). */
  host: ToolHost
  /** The request's `_meta`: its `traceparent` is the client's trace context. */
  meta?: Record<string, unknown>
  /** The `traceparent` HTTP header of the request (`serve --http`): the context when `_meta` has none. */
  header?: null | string
  /** The MCP tool that runs the program. */
  tool: string
  principal?: string
}

/**
 * `run`, traced (SPEC §18): each program a span, joined to the client's trace (`_meta`'s
 * `traceparent`, else the HTTP request's), and each of its tool calls a child span whose context
 * goes on to the server. `run` itself when nothing is traced.
 */
export async function tracedRun(run: Run, request: TraceRequest): Promise<Run> {
  const raw = [request.meta?.traceparent, request.header].find((value) => parseTraceparent(value))
  const parent = typeof raw === 'string' ? raw.trim() : undefined
  const tracer = await programTracer(request.telemetry, parent)
  if (!tracer) return run
  return async (code, options = {}) => {
    const span = tracer.start({parent, tool: request.tool, principal: request.principal, code})
    let outcome: RunOutcome | undefined
    try {
      outcome = await run(code, {...options, host: tracedHost(options.host ?? request.host, span)})
      return outcome
    } finally {
      span.end(outcome)
    }
  }
}

/** `host`, with each tool call a child span of `span`, run in its trace context. */
export function tracedHost(host: ToolHost, span: ProgramSpan): ToolHost {
  return {
    listTools: () => host.listTools(),
    getTool: (name) => host.getTool(name),
    ...(host.approvalNote && {approvalNote: (tool) => host.approvalNote!(tool)}),
    ...(host.hiddenTool && {hiddenTool: (name) => host.hiddenTool!(name)}),
    ...(host.observedResult && {observedResult: (name) => host.observedResult!(name)}),
    unavailableServers: () => host.unavailableServers(),
    serverStatus: () => host.serverStatus(),
    waitForInitialConnections: (timeoutMs) => host.waitForInitialConnections(timeoutMs),
    async callTool(name, args, options) {
      const call = span.call(name, host.getTool(name), args)
      const counted = options.onResultBytes
      try {
        const value = await withTraceparent(call.traceparent, () =>
          host.callTool(name, args, {
            ...options,
            onResultBytes(bytes) {
              call.resultBytes(bytes)
              counted?.(bytes)
            },
          }),
        )
        call.end()
        return value
      } catch (error) {
        call.end(error ?? new Error('failed'))
        throw error
      }
    },
  }
}
