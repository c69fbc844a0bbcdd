import type {StandardSchemaWithJSON} from '@modelcontextprotocol/server'

import {z} from 'zod'

import {USUAL_SANDBOX_TIERS} from '../sandbox/index.js'

const approvalSchema = z.enum(['approved', 'denied']).optional()
const argsSchema = z.record(z.string(), z.unknown())

/**
 * The structured content (SPEC §5): what Claude Code shows the model of a successful run. The
 * text's facts in the text's order, each said once; a field is absent when it would be empty.
 */
export const executeOutputSchema = z
  .object({
    ok: z.boolean().describe('True when the program ran to the end without an uncaught exception.'),
    error: z
      .string()
      .optional()
      .describe('Why the run failed (trimmed traceback, timeout, sandbox); only when ok is false.'),
    output: z
      .string()
      .optional()
      .describe(
        'What the program printed (absent: nothing); over the cap, first a note on what was cut, then its head and tail.',
      ),
    result: z.unknown().optional().describe('The emit() value, when emit() was called.'),
    files: z.string().optional().describe('The files kept from ./out/, and where.'),
    trace: z
      .string()
      .optional()
      .describe(
        'When calls were made or state kept: [tool calls: N, F failed; time], each failed call with its arguments and error ("(error above)" when the output or error already says it), what was stored.',
      ),
    calls: z
      .array(
        z.object({
          tool: z.string(),
          args: argsSchema,
          ok: z.boolean(),
          ms: z.number(),
          error: z.string().optional(),
          approval: approvalSchema,
        }),
      )
      .optional()
      .describe('Every call, with execution.trace: full.'),
    sandbox: z
      .string()
      .optional()
      .describe(
        `The sandbox tier, only when it is not the usual one (${USUAL_SANDBOX_TIERS.join(' on Linux, ')} on macOS), e.g. none.`,
      ),
    saved: z
      .string()
      .optional()
      .describe('With save_as: where the program was saved, or why it was not (SPEC §17).'),
  })
  .describe('Absent fields: nothing of that kind (no output, no error, no call, the usual sandbox).')

/**
 * `schema` as a tool's outputSchema that the SDK lists but does not check answers against: for
 * structured content this server builds itself with its type (structuredOutcome), the SDK's check
 * of every answer repeats the compiler's, at ~90 µs of a trivial program's ~4 ms (bench --steps).
 * The test of this file checks the structured content of every kind of outcome against `schema`.
 */
export function listedOnly<T>(schema: StandardSchemaWithJSON<T>): StandardSchemaWithJSON<T> {
  const standard = schema['~standard']
  return {
    '~standard': {
      version: 1,
      vendor: 'ptc-mcp',
      validate: (value: unknown) => ({value: value as T}),
      jsonSchema: standard.jsonSchema,
    },
  }
}

/** execute_program's outputSchema as registered: listed whole, answers not checked again. */
export const listedOutputSchema = listedOnly(executeOutputSchema)
