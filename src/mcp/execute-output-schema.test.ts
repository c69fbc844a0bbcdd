import {describe, expect, expectTypeOf, it} from 'vitest'
import {z} from 'zod'

import type {StructuredOutcome} from '../execution/outcome/structured-outcome.js'
import type {ToolCallTrace} from '../execution/outcome/trace.js'

import {executionSchema} from '../config/schema.js'
import {composeOutcome, type RunOutcome} from '../execution/outcome/outcome.js'
import {structuredOutcome} from '../execution/outcome/structured-outcome.js'
import {executeOutputSchema, listedOnly, listedOutputSchema} from './execute-output-schema.js'

const execution = executionSchema.parse({})
const target = {target: 'draft-2020-12' as const}

function outcome(options: {
  ok: boolean
  calls?: ToolCallTrace[]
  result?: unknown
  kept?: boolean
  output?: string
  sandbox?: string
}): RunOutcome {
  return composeOutcome(
    {
      end: options.ok
        ? {
            kind: 'done',
            ok: true,
            error: null,
            hasResult: options.result !== undefined,
            result: options.result ?? null,
          }
        : {kind: 'done', ok: false, error: 'ValueError: boom', hasResult: false, result: null},
      output: options.output ?? 'done\n',
      toolCalls: options.calls ?? [],
      elapsedMs: 12,
      sandbox: options.sandbox ?? 'linux:bwrap+landlock+seccomp',
      ...(options.kept && {
        kept: {
          dir: '/tmp/run/out',
          files: [{name: 'a.csv', path: '/tmp/run/out/a.csv', bytes: 3}],
          notKept: [],
          moreNotKept: 0,
        },
      }),
    },
    execution,
  )
}

const calls: ToolCallTrace[] = [
  {tool: 'mcp__a__x', args: {q: 'x'}, ok: true, ms: 2},
  {tool: 'mcp__a__y', args: {q: 'y'}, ok: false, ms: 3, error: 'not found', approval: 'denied'},
  {tool: 'mcp__a__y', args: {}, ok: true, ms: 1, approval: 'approved'},
]

describe('execute_program outputSchema (SPEC §5)', () => {
  it('lists the schema’s own JSON Schema', () => {
    const listed = listedOutputSchema['~standard'].jsonSchema.output(target)
    expect(listed).toEqual(executeOutputSchema['~standard'].jsonSchema.output(target))
    expect(listed).toMatchObject({type: 'object', required: ['ok']})
  })

  it('has the type structuredOutcome() builds (the compiler checks what the SDK no longer does)', () => {
    expectTypeOf<StructuredOutcome>().toExtend<z.infer<typeof executeOutputSchema>>()
    expectTypeOf<{ok: string}>().not.toExtend<z.infer<typeof executeOutputSchema>>()
  })

  it('hands every answer on as it is, without checking it again', () => {
    const wrong = {ok: 'not a boolean'}
    const validated = listedOnly(executeOutputSchema)['~standard'].validate(wrong)
    expect(validated).toEqual({value: wrong})
    expect((validated as {value: unknown}).value).toBe(wrong)
  })

  it.each([
    ['a run that succeeded', outcome({ok: true})],
    ['a run that failed', outcome({ok: false})],
    ['calls, failed and approved ones', outcome({ok: true, calls})],
    ['an emit() value', outcome({ok: true, result: {rows: [1, 2]}})],
    ['kept files', outcome({ok: true, kept: true})],
    ['no output, an emitted None', outcome({ok: true, output: '', result: null})],
    ['a failure without output, no sandbox', outcome({ok: false, output: '', sandbox: 'none', calls})],
  ])('the structured content of %s matches the schema the SDK no longer checks', (_name, run) => {
    for (const allCalls of [false, true]) {
      const parsed = executeOutputSchema.safeParse(structuredOutcome(run, {allCalls}))
      expect(parsed.error?.issues ?? []).toEqual([])
    }
  })
})
