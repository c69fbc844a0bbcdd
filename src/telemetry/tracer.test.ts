// @tier unit
import {describe, expect, it} from 'vitest'

import {exportSettings, programTracer} from './tracer.js'

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

describe('exportSettings', () => {
  it('is off with neither telemetry.otlp nor the OTLP environment variables', () => {
    expect(exportSettings({arguments: false}, {})).toBeUndefined()
  })

  it('sends to <telemetry.otlp>/v1/traces', () => {
    expect(exportSettings({otlp: 'http://collector:4318/', arguments: true}, {})).toEqual({
      url: 'http://collector:4318/v1/traces',
      arguments: true,
    })
  })

  it('leaves the URL to the exporter when only the environment names one', () => {
    expect(exportSettings({arguments: false}, {OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318'})).toEqual({
      arguments: false,
    })
    expect(exportSettings({arguments: false}, {OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/t'})).toEqual({
      arguments: false,
    })
  })

  it('is off when OTEL_SDK_DISABLED is true, whatever else is set', () => {
    expect(
      exportSettings({otlp: 'http://c:4318', arguments: false}, {OTEL_SDK_DISABLED: 'TRUE'}),
    ).toBeUndefined()
  })
})

describe('programTracer without an endpoint', () => {
  it('traces nothing when the client sent no traceparent', async () => {
    expect(await programTracer({arguments: false})).toBeUndefined()
  })

  it("passes the client's traceparent on unchanged", async () => {
    const tracer = (await programTracer({arguments: false}, PARENT))!
    const span = tracer.start({parent: PARENT, tool: 'execute_program', code: 'print(1)'})
    expect(span.traceparent).toBe(PARENT)
    expect(span.call('mcp__a__b', undefined, {}).traceparent).toBe(PARENT)
  })
})
