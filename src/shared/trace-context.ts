import {AsyncLocalStorage} from 'node:async_hooks'

/**
 * The W3C trace context a tool call runs in (SPEC §18): the `traceparent` passed on to downstream
 * servers, as an HTTP header and in the `_meta` of their tools/call. Set by the telemetry around
 * each call of a traced program; absent otherwise (then nothing is added anywhere).
 */

/** `00-<trace id>-<parent id>-<flags>`, lowercase hex (version 00; an all-zero id is invalid). */
const TRACEPARENT = /^00-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/

export interface TraceParent {
  traceId: string
  spanId: string
  /** Bit 0: sampled. */
  flags: number
}

/** The parts of a valid `traceparent`, else undefined. */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string') return undefined
  const match = TRACEPARENT.exec(value.trim())
  if (!match) return undefined
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string]
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined
  return {traceId, spanId, flags: Number.parseInt(flags, 16)}
}

export function formatTraceparent({traceId, spanId, flags}: TraceParent): string {
  return `00-${traceId}-${spanId}-${flags.toString(16).padStart(2, '0')}`
}

/** Made on first use: an AsyncLocalStorage that never ran costs nothing per promise. */
let storage: AsyncLocalStorage<string> | undefined

/** Runs `fn` with `traceparent` as the context of what it sends downstream. */
export function withTraceparent<T>(traceparent: string, fn: () => T): T {
  storage ??= new AsyncLocalStorage<string>()
  return storage.run(traceparent, fn)
}

/** The `traceparent` of the tool call running here, if it is traced. */
export function currentTraceparent(): string | undefined {
  return storage?.getStore()
}

/** `{_meta: {traceparent}}` for a downstream tools/call made in a traced call, else nothing. */
export function traceMeta(): {_meta?: {traceparent: string}} {
  const traceparent = currentTraceparent()
  return traceparent === undefined ? {} : {_meta: {traceparent}}
}

/** `init` with a `traceparent` header when the request is made in a traced call. */
export function withTraceHeader(init: Parameters<typeof fetch>[1]): Parameters<typeof fetch>[1] {
  const traceparent = currentTraceparent()
  if (traceparent === undefined) return init
  const headers = new Headers(init?.headers)
  headers.set('traceparent', traceparent)
  return {...init, headers}
}
