// Imported only when an OTLP endpoint is configured (tracer.ts): the one module that loads the
// OpenTelemetry SDK and its OTLP/HTTP exporter (JSON).
import {
  type Attributes,
  diag,
  DiagLogLevel,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api'
import {OTLPTraceExporter} from '@opentelemetry/exporter-trace-otlp-http'
import {resourceFromAttributes} from '@opentelemetry/resources'
import {BasicTracerProvider, BatchSpanProcessor} from '@opentelemetry/sdk-trace-base'

import type {ToolInfo} from '../downstream/index.js'
import type {RunOutcome} from '../execution/index.js'
import type {CallSpan, ExportSettings, ProgramSpan, ProgramStart, ProgramTracer} from './types.js'

import {ToolError} from '../downstream/index.js'
import {cutWithin} from '../shared/cut.js'
import {formatTraceparent, parseTraceparent} from '../shared/trace-context.js'

/** The longest code or arguments text put in a span (telemetry.arguments), in characters. */
export const MAX_ATTRIBUTE_CHARS = 8192

export function createOtelTracer(settings: ExportSettings): ProgramTracer {
  logDiagnostics(process.env.OTEL_LOG_LEVEL)
  const exporter = new OTLPTraceExporter(settings.url === undefined ? {} : {url: settings.url})
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({'service.name': process.env.OTEL_SERVICE_NAME || 'ptc-mcp'}),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('ptc-mcp')
  let stopped = false
  return {
    start: (program) => startProgram(tracer, program, settings.arguments),
    async shutdown(timeoutMs) {
      if (stopped) return
      stopped = true
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs)
      })
      await Promise.race([provider.shutdown().catch(() => {}), late])
      clearTimeout(timer)
    },
  }
}

function startProgram(tracer: Tracer, program: ProgramStart, withArguments: boolean): ProgramSpan {
  const parent = parseTraceparent(program.parent)
  const context = parent
    ? trace.setSpanContext(ROOT_CONTEXT, {
        traceId: parent.traceId,
        spanId: parent.spanId,
        // Only the sampled flag is defined (W3C trace context, version 00).
        traceFlags: parent.flags % 2 === 1 ? TraceFlags.SAMPLED : TraceFlags.NONE,
        isRemote: true,
      })
    : ROOT_CONTEXT
  const attributes: Attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': program.tool,
    ...(program.principal !== undefined && {'ptc.principal': program.principal}),
    ...(withArguments && {'ptc.program.code': cutWithin(program.code, MAX_ATTRIBUTE_CHARS)}),
  }
  const span = tracer.startSpan(`tools/call ${program.tool}`, {kind: SpanKind.SERVER, attributes}, context)
  const inside = trace.setSpan(ROOT_CONTEXT, span)
  return {
    traceparent: traceparentOf(span),
    call: (name, info, args) =>
      startCall(tracer, inside, {name, info, args: withArguments ? args : undefined}),
    end(outcome) {
      endProgram(span, outcome, withArguments)
    },
  }
}

function endProgram(span: Span, outcome: RunOutcome | undefined, withArguments: boolean): void {
  if (outcome === undefined) {
    span.setAttribute('ptc.outcome', 'failed')
    span.setStatus({code: SpanStatusCode.ERROR})
  } else {
    span.setAttributes({
      'ptc.outcome': outcome.ok ? 'ok' : 'error',
      'ptc.tool_calls': outcome.tool_calls.length,
      'ptc.sandbox': outcome.sandbox,
    })
    if (!outcome.ok) {
      span.setAttribute('error.type', 'program_error')
      // The error text may quote data the program read: only with telemetry.arguments.
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(withArguments &&
          outcome.error !== null && {message: cutWithin(outcome.error, MAX_ATTRIBUTE_CHARS)}),
      })
    }
  }
  span.end()
}

interface CallStart {
  name: string
  info: ToolInfo | undefined
  /** Present only with telemetry.arguments. */
  args: Record<string, unknown> | undefined
}

function startCall(tracer: Tracer, inside: typeof ROOT_CONTEXT, call: CallStart): CallSpan {
  const tool = call.info?.tool ?? call.name
  const attributes: Attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'ptc.tool': call.name,
    ...(call.info && {'ptc.server': call.info.server}),
    ...(call.args && {
      'gen_ai.tool.call.arguments': cutWithin(JSON.stringify(call.args), MAX_ATTRIBUTE_CHARS),
    }),
  }
  const span = tracer.startSpan(`tools/call ${tool}`, {kind: SpanKind.CLIENT, attributes}, inside)
  let bytes = 0
  return {
    traceparent: traceparentOf(span),
    resultBytes(count) {
      bytes += count
    },
    end(error) {
      span.setAttribute('ptc.result_bytes', bytes)
      if (error === undefined) span.setAttribute('ptc.outcome', 'ok')
      else {
        const kind = error instanceof ToolError ? error.kind : 'protocol'
        span.setAttributes({'ptc.outcome': kind, 'error.type': kind})
        span.setStatus({code: SpanStatusCode.ERROR})
      }
      span.end()
    },
  }
}

function traceparentOf(span: Span): string {
  const {traceId, spanId, traceFlags} = span.spanContext()
  return formatTraceparent({traceId, spanId, flags: traceFlags})
}

/** OTEL_LOG_LEVEL (error, warn, info, debug): the SDK's own messages on stderr (stdout is serve's protocol). */
function logDiagnostics(level: string | undefined): void {
  const chosen = level && DiagLogLevel[level.trim().toUpperCase() as keyof typeof DiagLogLevel]
  if (!chosen) return
  const write = (message: string, ...args: unknown[]) => {
    process.stderr.write(`ptc-mcp telemetry: ${[message, ...args.map(String)].join(' ')}\n`)
  }
  diag.setLogger({error: write, warn: write, info: write, debug: write, verbose: write}, chosen)
}
