// @tier integration
// Telemetry of `ptc-mcp run` (SPEC §18): the program's span joins $TRACEPARENT's trace, each tool
// call a child span, all sent to an OTLP/HTTP receiver in this test before the command exits.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {freshTraceparent, OtlpReceiver} from '../helpers/otlp-receiver.js'
import {prepareServe, spawnCli} from '../helpers/serve.js'

const receiver = new OtlpReceiver()

beforeAll(async () => {
  await receiver.start()
})

afterAll(async () => {
  await receiver.stop()
})

describe('ptc-mcp run with telemetry.otlp', () => {
  it("sends the program's span in $TRACEPARENT's trace, with a child span per tool call, before it exits", async () => {
    const setup = prepareServe({
      servers: [{name: 'fx', ...fixtureCommand(['--name', 'fx'])}],
      telemetry: {otlp: receiver.url},
    })
    try {
      const program = join(setup.configPath, '..', 'program.py')
      writeFileSync(
        program,
        'print((await mcp__fx__add(a=1, b=2))["sum"])\nprint(await mcp__fx__echo(text="x"))\n',
      )
      const trace = freshTraceparent()
      // The default batch delay (5 s) is longer than the run: what is sent comes from the flush at exit.
      const env = {...setup.env, TRACEPARENT: trace.traceparent}
      const result = await spawnCli(['run', program, '--config', setup.configPath], {env, timeoutMs: 60_000})
        .done
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain('3')
      const mine = receiver.spans.filter((span) => span.traceId === trace.traceId)
      const root = mine.find((span) => span.parentSpanId === trace.spanId)
      expect(root).toMatchObject({
        name: 'tools/call run',
        attributes: {'ptc.outcome': 'ok', 'ptc.tool_calls': 2},
      })
      const calls = mine.filter((span) => span.parentSpanId === root!.spanId)
      expect(calls.map((call) => call.attributes['gen_ai.tool.name']).sort()).toEqual(['add', 'echo'])
      expect(mine).toHaveLength(3)
    } finally {
      setup.cleanup()
    }
  })
})
