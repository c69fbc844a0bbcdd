// An OTLP/HTTP trace receiver for tests (SPEC §18): a node:http server that accepts the
// exporter's POST /v1/traces (JSON, as @opentelemetry/exporter-trace-otlp-http sends it) and keeps
// every span, flattened. A protobuf body is refused (415), so a test notices if the encoding changes.
import {createServer, type Server} from 'node:http'

export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  /** OTLP's SpanKind number: 2 server, 3 client. */
  kind: number
  attributes: Record<string, unknown>
  status: {code?: number; message?: string}
  durationMs: number
  service: unknown
}

interface OtlpValue {
  stringValue?: string
  intValue?: number | string
  boolValue?: boolean
  doubleValue?: number
}
type OtlpAttributes = Array<{key: string; value: OtlpValue}>
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes?: OtlpAttributes
  status?: {code?: number; message?: string}
  startTimeUnixNano: string | number
  endTimeUnixNano: string | number
}
interface OtlpBody {
  resourceSpans?: Array<{
    resource?: {attributes?: OtlpAttributes}
    scopeSpans?: Array<{spans?: OtlpSpan[]}>
  }>
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = []
  /** Content types of the POSTs received. */
  readonly contentTypes: string[] = []
  private server: Server | undefined
  url = ''

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const type = req.headers['content-type'] ?? ''
        this.contentTypes.push(type)
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end()
          return
        }
        if (!type.includes('json')) {
          res.writeHead(415).end()
          return
        }
        this.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody)
        res.writeHead(200, {'Content-Type': 'application/json'}).end('{}')
      })
    })
    await new Promise<void>((done) => {
      server.listen(0, '127.0.0.1', done)
    })
    this.server = server
    this.url = `http://127.0.0.1:${(server.address() as {port: number}).port}`
    return this.url
  }

  /** Waits until `check` holds for the spans received (every 50 ms, up to `ms`), then returns them. */
  async waitFor(check: (spans: ReceivedSpan[]) => boolean, ms = 15_000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + ms
    while (!check(this.spans)) {
      if (Date.now() > deadline)
        throw new Error(`the spans expected never came; received:\n${JSON.stringify(this.spans, null, 1)}`)
      await new Promise((done) => {
        setTimeout(done, 50)
      })
    }
    return this.spans
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((done) => {
      if (this.server) this.server.close(() => done())
      else done()
    })
  }

  private take(body: OtlpBody): void {
    for (const resource of body.resourceSpans ?? []) {
      const service = flatten(resource.resource?.attributes)['service.name']
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: flatten(span.attributes),
            status: span.status ?? {},
            durationMs: Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6,
            service,
          })
    }
  }
}

function flatten(attributes: OtlpAttributes | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const {key, value} of attributes ?? []) {
    out[key] =
      value.stringValue ??
      (value.intValue === undefined ? undefined : Number(value.intValue)) ??
      value.boolValue ??
      value.doubleValue
  }
  return out
}

/** A W3C traceparent with fresh random ids, sampled. */
export function freshTraceparent(): {traceparent: string; traceId: string; spanId: string} {
  const hex = (bytes: number) =>
    [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('')
  const traceId = hex(16)
  const spanId = hex(8)
  return {traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId}
}
