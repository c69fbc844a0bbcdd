import type {TelemetryConfig} from '../config/schema.js'
import type {CallSpan, ExportSettings, ProgramTracer} from './types.js'

/**
 * Spans of programs and their tool calls (SPEC §18), as the rest of ptc-mcp sees them. The
 * OpenTelemetry SDK and its OTLP exporter are imported only when an endpoint is configured (the
 * config's telemetry.otlp, or OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT): otherwise nothing of them
 * is loaded, and a program costs one check.
 */

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
