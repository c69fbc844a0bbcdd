import type {JsonSchemaType, JsonSchemaValidator} from '@modelcontextprotocol/client'

import {isRecord} from '../guards.js'
import {jsonLength} from '../shorten-json.js'
import {linearRegExp, SchemaEngines, UnsupportedPatternError} from './schema-engines.js'

/**
 * JSON Schema checks of tool arguments (before anything is sent, SPEC §6) and of structured results
 * against `outputSchema`, with the SDK's Ajv-based validator (2020-12 by default, 2019-09, draft-07
 * and draft-06 when a schema declares them). Each schema is compiled once and cached. Patterns run
 * on a linear-time engine (schema-engines.ts); a value over ALL_ERRORS_MAX_CHARS of JSON gets its
 * first problem only, so no value costs more to check than its own size (SPEC §15).
 *
 * The SDK's validator reports one string (Ajv's `errorsText`: `data/limit must be integer, ...`);
 * this module turns it into messages a model can act on (`argument 'limit': must be integer`),
 * completing the ones Ajv leaves vague (which property is unexpected, which values are allowed) from
 * the schema and the data.
 */

/** At most this many problems are reported for one value; the rest are counted. */
const MAX_PROBLEMS = 5
/** Values with more JSON than this are checked up to their first problem. */
export const ALL_ERRORS_MAX_CHARS = 65_536

/** `refused`: the schema has a pattern the linear-time engine cannot run; nothing is checked against it. */
export type CompiledSchema =
  {ok: true; validate: JsonSchemaValidator<unknown>} | {ok: false; error: string; refused: boolean}

export class SchemaValidator {
  private readonly engines: SchemaEngines
  // Keyed by the schema object itself: a refreshed tool list brings new objects and so new entries,
  // and the old ones go with the old tools. One cache per error mode.
  private readonly caches = [new WeakMap<object, CompiledSchema>(), new WeakMap<object, CompiledSchema>()]

  constructor(engines: SchemaEngines = new SchemaEngines()) {
    this.engines = engines
  }

  /** Compiles (once) a schema. A schema the engine cannot compile gives `{ok: false, error}`. */
  compile(schema: Record<string, unknown>, allErrors = true): CompiledSchema {
    const cache = this.caches[allErrors ? 0 : 1]!
    const cached = cache.get(schema)
    if (cached) return cached
    let compiled: CompiledSchema
    try {
      // `$id` is dropped: the SDK looks schemas up by `$id` in one shared engine, so two servers
      // that both use `$id: "input"` would otherwise get each other's schema (or a compile error).
      const withoutId = {...schema}
      delete withoutId.$id
      const provider = this.engines.provider(schema, allErrors)
      compiled = {ok: true, validate: provider.getValidator<unknown>(withoutId as JsonSchemaType)}
    } catch (error) {
      compiled = {
        ok: false,
        error: error instanceof Error ? error.message : String(error),
        refused: error instanceof UnsupportedPatternError,
      }
    }
    cache.set(schema, compiled)
    return compiled
  }

  /**
   * Problems with `args` against a tool's `inputSchema`, one message each
   * (`argument 'limit': must be integer`), or `[]` when they are valid. A schema that does not
   * compile is not held against the caller: the server remains the judge; but one with a pattern
   * that cannot be checked in linear time is refused, and so is every value against it.
   */
  checkArguments(inputSchema: Record<string, unknown>, args: Record<string, unknown>): string[] {
    return this.check(inputSchema, args, 'argument')
  }

  /** Problems with a structured result against a tool's `outputSchema`, or `[]` when it matches. */
  checkResult(outputSchema: Record<string, unknown>, structured: unknown): string[] {
    return this.check(outputSchema, structured, 'field')
  }

  private check(schema: Record<string, unknown>, value: unknown, noun: Noun): string[] {
    const compiled = this.compile(schema, jsonLength(value, ALL_ERRORS_MAX_CHARS) <= ALL_ERRORS_MAX_CHARS)
    if (!compiled.ok) return compiled.refused ? [compiled.error] : []
    const result = compiled.validate(value)
    if (result.valid) return []
    return describeProblems(result.errorMessage, schema, value, noun)
  }
}

type Noun = 'argument' | 'field'

interface AjvProblem {
  /** JSON Pointer segments of the offending value, decoded. */
  path: string[]
  message: string
}

/** Splits Ajv's `errorsText` output (`data/a/0 must be number, data must have ...`) back into problems. */
export function parseAjvErrorsText(text: string): AjvProblem[] {
  return text.split(/, (?=data[/ ])/).map((part) => {
    const match = /^data((?:\/[^ ]*)?) (.*)$/s.exec(part)
    if (!match) return {path: [], message: part}
    const pointer = match[1] ?? ''
    const path =
      pointer === ''
        ? []
        : pointer
            .slice(1)
            .split('/')
            .map((segment) => decodePointerSegment(segment))
    return {path, message: match[2] ?? ''}
  })
}

function decodePointerSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~')
}

function describeProblems(
  errorsText: string,
  schema: Record<string, unknown>,
  value: unknown,
  noun: Noun,
): string[] {
  // A Set: a value may have tens of thousands of problems.
  const messages = new Set<string>()
  for (const problem of parseAjvErrorsText(errorsText)) {
    for (const message of describeProblem(problem, schema, value, noun)) messages.add(message)
  }
  const all = [...messages]
  if (all.length <= MAX_PROBLEMS) return all
  return [...all.slice(0, MAX_PROBLEMS), `... and ${all.length - MAX_PROBLEMS} more`]
}

function describeProblem(
  problem: AjvProblem,
  rootSchema: Record<string, unknown>,
  rootValue: unknown,
  noun: Noun,
): string[] {
  const {path, message} = problem
  const required = /^must have required property '(.*)'$/s.exec(message)
  if (required) return [`missing required ${noun} '${formatPath([...path, required[1] ?? ''])}'`]

  const subject =
    path.length === 0 ? (noun === 'argument' ? 'arguments' : 'result') : `${noun} '${formatPath(path)}'`
  const schema = schemaAt(rootSchema, path)
  if (
    message === 'must NOT have additional properties' ||
    message === 'must NOT have unevaluated properties'
  ) {
    const unexpected = describeUnexpected(path, schema, valueAt(rootValue, path), noun)
    if (unexpected.length > 0) return unexpected
  }

  return [`${subject}: ${describeAllowed(message, schema) ?? message}`]
}

/** `unexpected argument 'limt' (accepted: ticker, limit)`: Ajv does not say which key is extra. */
function describeUnexpected(
  path: readonly string[],
  schema: Record<string, unknown> | undefined,
  value: unknown,
  noun: Noun,
): string[] {
  const accepted = isRecord(schema?.properties) ? Object.keys(schema.properties) : []
  const hint = path.length === 0 && accepted.length > 0 ? ` (accepted: ${accepted.join(', ')})` : ''
  return unexpectedKeys(schema, value).map(
    (key) => `unexpected ${noun} '${formatPath([...path, key])}'${hint}`,
  )
}

/** `must be one of "annual", "quarterly"`: Ajv does not list the allowed values. */
function describeAllowed(message: string, schema: Record<string, unknown> | undefined): string | undefined {
  if (message === 'must be equal to one of the allowed values' && Array.isArray(schema?.enum)) {
    return `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`
  }
  if (message === 'must be equal to constant' && schema && 'const' in schema) {
    return `must be ${JSON.stringify(schema.const)}`
  }
  return undefined
}

/** `['items', '0', 'name']` → `items[0].name`. */
function formatPath(path: readonly string[]): string {
  let out = ''
  for (const segment of path) {
    if (/^\d+$/.test(segment)) out += `[${segment}]`
    else out += out === '' ? segment : `.${segment}`
  }
  return out
}

function unexpectedKeys(schema: Record<string, unknown> | undefined, value: unknown): string[] {
  if (!schema || !isRecord(value)) return []
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const patterns = isRecord(schema.patternProperties) ? Object.keys(schema.patternProperties) : []
  return Object.keys(value).filter(
    (key) => !Object.hasOwn(properties, key) && !patterns.some((pattern) => safeRegExp(pattern)?.test(key)),
  )
}

function safeRegExp(pattern: string): undefined | {test(text: string): boolean} {
  try {
    return linearRegExp(pattern)
  } catch {
    return undefined
  }
}

/**
 * The sub-schema describing the value at `path`, following `properties`, `items`, `prefixItems`,
 * `additionalProperties` and local `$ref`s; `undefined` when the path leads through anything else
 * (combinators), in which case the message stays as Ajv wrote it.
 */
function schemaAt(
  root: Record<string, unknown>,
  path: readonly string[],
): Record<string, unknown> | undefined {
  let schema: Record<string, unknown> | undefined = resolveRef(root, root)
  for (const segment of path) {
    if (!schema) return undefined
    const {properties} = schema
    let next: unknown
    if (isRecord(properties) && Object.hasOwn(properties, segment)) next = properties[segment]
    else if (
      /^\d+$/.test(segment) &&
      Array.isArray(schema.prefixItems) &&
      Number(segment) < schema.prefixItems.length
    )
      next = schema.prefixItems[Number(segment)]
    else if (/^\d+$/.test(segment) && isRecord(schema.items)) next = schema.items
    else if (isRecord(schema.additionalProperties)) next = schema.additionalProperties
    schema = isRecord(next) ? resolveRef(root, next) : undefined
  }
  return schema
}

function resolveRef(
  root: Record<string, unknown>,
  schema: Record<string, unknown>,
  depth = 0,
): Record<string, unknown> {
  const ref = schema.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#') || depth > 16) return schema
  let target: unknown = root
  for (const segment of ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map((segment) => decodePointerSegment(segment))) {
    target = isRecord(target) ? target[segment] : undefined
  }
  return isRecord(target) ? resolveRef(root, target, depth + 1) : schema
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root
  for (const segment of path) {
    if (Array.isArray(value)) value = value[Number(segment)]
    else if (isRecord(value)) value = value[segment]
    else return undefined
  }
  return value
}
