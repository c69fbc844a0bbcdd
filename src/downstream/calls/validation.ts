import type {ErrorObject, ValidateFunction} from 'ajv'

import {isRecord} from '../../shared/guards.js'
import {ALL_ERRORS_MAX_CHARS} from '../../shared/limits.js'
import {jsonLength} from '../../shared/shorten-json.js'
import {SchemaEngines, UnsupportedPatternError} from './schema-engines.js'
import {followRefs, pointerSegments} from './schema-ref.js'

/**
 * JSON Schema checks of tool arguments (before anything is sent, SPEC §6) and of structured results
 * against `outputSchema`, with Ajv as the SDK runs it (2020-12 by default, 2019-09, draft-07 and
 * draft-06 when a schema declares them). Each schema is compiled once and cached. Patterns run on a
 * linear-time engine (schema-engines.ts); a value over ALL_ERRORS_MAX_CHARS of JSON gets its first
 * problem only, so no value costs more to check than its own size (SPEC §15).
 *
 * Ajv's error objects become messages a model can act on (`argument 'limit': must be integer`),
 * completed where Ajv's own message is vague (which property is unexpected or missing, which
 * values are allowed) from the error's `params`.
 */

/** At most this many problems are reported for one value; the rest are counted. */
const MAX_PROBLEMS = 5

/** `refused`: the schema has a pattern the linear-time engine cannot run; nothing is checked against it. */
export type CompiledSchema =
  {ok: true; validate: ValidateFunction} | {ok: false; error: string; refused: boolean}

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
      // `$id` is dropped: Ajv keeps schemas by `$id` in one shared engine, so two servers that
      // both use `$id: "input"` would otherwise get each other's schema (or a compile error).
      const withoutId = {...schema}
      delete withoutId.$id
      compiled = {ok: true, validate: this.engines.engine(schema, allErrors).compile(withoutId)}
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
    const {validate} = compiled
    if (validate(value)) return []
    return describeProblems(validate.errors ?? [], schema, noun)
  }
}

type Noun = 'argument' | 'field'

/** One message per distinct problem (a value may have tens of thousands), at most MAX_PROBLEMS. */
function describeProblems(
  errors: readonly ErrorObject[],
  schema: Record<string, unknown>,
  noun: Noun,
): string[] {
  const hint = acceptedHint(schema)
  const messages = new Set(errors.map((error) => describeProblem(error, noun, hint)))
  const all = [...messages]
  if (all.length <= MAX_PROBLEMS) return all
  return [...all.slice(0, MAX_PROBLEMS), `... and ${all.length - MAX_PROBLEMS} more`]
}

/** `hint` follows an unexpected top-level name: the names the schema accepts. */
function describeProblem(error: ErrorObject, noun: Noun, hint: string): string {
  const path = pointerSegments(error.instancePath)
  const {params} = error
  switch (error.keyword) {
    case 'required': {
      return `missing required ${noun} '${formatPath([...path, String(params.missingProperty)])}'`
    }

    case 'additionalProperties':
    case 'unevaluatedProperties': {
      // Ajv does not say which key is extra in its message: its params do.
      const key = params.additionalProperty ?? params.unevaluatedProperty
      return `unexpected ${noun} '${formatPath([...path, String(key)])}'${path.length === 0 ? hint : ''}`
    }

    case 'enum': {
      if (Array.isArray(params.allowedValues)) {
        return `${subject(path, noun)}: must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      }

      break
    }

    case 'const': {
      return `${subject(path, noun)}: must be ${JSON.stringify(params.allowedValue)}`
    }
  }

  return `${subject(path, noun)}: ${error.message ?? error.keyword}`
}

function subject(path: readonly string[], noun: Noun): string {
  if (path.length > 0) return `${noun} '${formatPath(path)}'`
  return noun === 'argument' ? 'arguments' : 'result'
}

/** ` (accepted: ticker, limit)`: the top-level properties of the schema, if it names any. */
function acceptedHint(schema: Record<string, unknown>): string {
  const root = followRefs(schema, schema)
  const properties = isRecord(root) ? root.properties : undefined
  const accepted = isRecord(properties) ? Object.keys(properties) : []
  return accepted.length > 0 ? ` (accepted: ${accepted.join(', ')})` : ''
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
