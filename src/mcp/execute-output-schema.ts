import type {StandardSchemaWithJSON} from '@modelcontextprotocol/server'

import {z} from 'zod'

const approvalSchema = z.enum(['approved', 'denied']).optional()
const argsSchema = z.record(z.string(), z.unknown())

/** The structured content (SPEC §5): what Claude Code shows the model of a successful run. */
export const executeOutputSchema = z.object({
  ok: z.boolean().describe('True when the program ran to the end without an uncaught exception.'),
  status: z
    .string()
    .describe('The status line: [Script executed successfully] or [Script execution failed].'),
  output: z
    .string()
    .describe(
      'What the program printed; over the cap, first a note on what was cut, then its head and tail.',
    ),
  result: z.unknown().describe('The last emit() value, or null.'),
  error: z
    .string()
    .nullable()
    .describe('The error when the run failed (trimmed traceback, timeout, sandbox).'),
  files: z.string().optional().describe('The files kept from ./out/, and where.'),
  trace: z
    .string()
    .describe(
      'The summary of tool calls (count, failures, time) and of what the program stored for the next ones, as in the text.',
    ),
  tool_calls: z.object({
    counts: z
      .record(z.string(), z.object({calls: z.number(), failed: z.number()}))
      .describe('Calls per tool.'),
    failed: z
      .array(
        z.object({
          tool: z.string(),
          args: argsSchema,
          error: z.string(),
          ms: z.number(),
          approval: approvalSchema,
        }),
      )
      .describe('The first failed calls, with short arguments.'),
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
  }),
  sandbox: z.string().describe('The sandbox layer in force for this run.'),
  saved: z
    .string()
    .optional()
    .describe('With save_as: where the program was saved, or why it was not (SPEC §17).'),
})

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
