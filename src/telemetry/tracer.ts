import type {TelemetryConfig} from '../config/schema.js'
import type {ToolInfo} from '../downstream/types.js'
import type {RunOutcome} from '../execution/engine.js'

/**
 * Spans of programs and their tool calls (SPEC §18), as the rest of ptc-mcp sees them. The
 * OpenTelemetry SDK and its OTLP exporter are imported only when an endpoint is configured (the
 * config's telemetry.otlp, or OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT): otherwise nothing of them
 * is loaded, and a program costs one check.
 */

/** What a program span records at its start. */
export interface ProgramStart {
  /** The client's `traceparent` from the request's `_meta`: the span joins its trace. */
  parent?: string
  /** The MCP tool that runs the program: execute_program, or a saved program's tool. */
  tool: string
  /** Who called, through the gateway. */
  principal?: string
  /** The program's code: recorded only with telemetry.arguments. */
  code: string
}

export interface ProgramSpan {
  /** This span's context as a `traceparent`. */
  readonly traceparent: string
  /** A child span for one tool call; `info` is the tool when the host knows it. */
  call(name: string, info: ToolInfo | undefined, args: Record<string, unknown>): CallSpan
  /** `outcome` undefined: the run threw. */
  end(outcome: RunOutcome | undefined): void
}

export interface CallSpan {
  /** The call's context, passed on to the server. */
  readonly traceparent: string
  /** Bytes of the result that reached the program. */
  resultBytes(bytes: number): void
  /** `error` undefined: the call succeeded. */
  end(error?: unknown): void
}

export interface ProgramTracer {
  start(program: ProgramStart): ProgramSpan
  /** Sends what is still buffered, within `timeoutMs`; then records nothing more. */
  shutdown(timeoutMs: number): Promise<void>
}

export interface ExportSettings {
  /** The OTLP/HTTP traces URL; undefined: the exporter reads OTEL_EXPORTER_OTLP_* itself. */
  url?: string
  /** Put code and tool arguments in the spans. */
  arguments: boolean
}

/** Where spans go, or undefined when no endpoint is configured (or OTEL_SDK_DISABLED is true). */
export function exportSettings(
  config: TelemetryConfig,
  env: NodeJS.ProcessEnv = process.env,
): ExportSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined
  if (config.otlp !== undefined)
    return {url: `${config.otlp.replace(/\/+$/, '')}/v1/traces`, arguments: config.arguments}
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return {arguments: config.arguments}
  return undefined
}

/** Without an exporter, a client's trace context still reaches the servers (W3C: passed on as is). */
const passThrough: ProgramTracer = {
  start({parent}) {
    const traceparent = parent!
    const call: CallSpan = {traceparent, resultBytes() {}, end() {}}
    return {traceparent, call: () => call, end() {}}
  },
  async shutdown() {},
}

/** Per config: read once (null: not configured). */
const settingsOf = new WeakMap<TelemetryConfig, ExportSettings | null>()

/** One exporting tracer per process, made on first use. */
let exporting: Promise<ProgramTracer> | undefined

/**
 * The tracer for a program, or undefined when it is not traced at all: no endpoint configured and
 * no `parent` from the client.
 */
export async function programTracer(
  config: TelemetryConfig,
  parent?: string,
): Promise<ProgramTracer | undefined> {
  if (exporting) return exporting
  let settings = settingsOf.get(config)
  if (settings === undefined) {
    settings = exportSettings(config) ?? null
    settingsOf.set(config, settings)
  }
  if (settings) {
    exporting = import('./otel.js').then(({createOtelTracer}) => createOtelTracer(settings))
    return exporting
  }
  return parent === undefined ? undefined : passThrough
}

/** Sends the spans still buffered (bounded: `timeoutMs`); a no-op when nothing was traced. */
export async function shutdownTelemetry(timeoutMs = 3000): Promise<void> {
  const tracer = await exporting?.catch(() => {})
  await tracer?.shutdown(timeoutMs)
}
