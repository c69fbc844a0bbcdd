import {cutAfter} from '../../shared/cut.js'
/**
 * The argument rules applied before a call's arguments are validated against the tool's
 * `inputSchema` (SPEC §6): an optional argument passed as `None` is left out of the request, and
 * an argument the schema does not list is refused with the closest name it does list, unless the
 * schema allows more properties explicitly. Ajv validation (validation.ts) comes after.
 */
import {isRecord} from '../../shared/guards.js'
import {MAX_PATTERN_NAME_CHARS} from '../../shared/limits.js'
import {suggestNames} from '../../shared/naming.js'
import {type LinearRegExp, linearRegExp, UnsupportedPatternError} from './schema-engines.js'
import {followRefs} from './schema-ref.js'

/** An unexpected name is quoted up to this length in the message. */
const MAX_QUOTED_NAME_CHARS = 60

export interface PreparedArguments {
  /** The arguments to validate and send: `args` itself when nothing was left out. */
  args: Record<string, unknown>
  /**
   * One message per argument the schema does not list, e.g. `unexpected argument 'sort_by'; did
   * you mean 'sortBy'?`, then the required ones missing (those not suggested for a wrong name).
   */
  problems: string[]
}

export function prepareArguments(
  inputSchema: Record<string, unknown>,
  args: Record<string, unknown>,
): PreparedArguments {
  const known = listedProperties(inputSchema)
  if (!known) return {args: withoutNullOptionals(args, undefined, inputSchema), problems: []}
  const problems: string[] = []
  const names = [...known.properties.keys()]
  // One to one: `get_sum(x=1, y=2)` meant a and b, not a twice.
  const suggested = new Set<string>()
  for (const key of known.openEnded ? [] : Object.keys(args)) {
    if (known.properties.has(key) || matchesPattern(known.patterns, key)) continue
    problems.push(unexpectedMessage(key, names, args, suggested))
  }
  if (problems.length > 0) {
    const missing = [...known.required].filter((name) => !Object.hasOwn(args, name) && !suggested.has(name))
    for (const name of missing) problems.push(`missing required argument '${name}'`)
  }
  return {args: withoutNullOptionals(args, known, inputSchema), problems}
}

/** Patterns are the server's; names are the program's, so only names of sane length are tried. */
function matchesPattern(patterns: readonly (LinearRegExp | undefined)[], key: string): boolean {
  return key.length <= MAX_PATTERN_NAME_CHARS && patterns.some((pattern) => pattern?.test(key))
}

/**
 * The closest name is one the call has not passed yet (`get_sum(a=1, c=2)` meant b, not a), nor
 * suggested for another wrong name (`suggested`, which this adds to).
 */
function unexpectedMessage(
  key: string,
  names: readonly string[],
  args: Record<string, unknown>,
  suggested: Set<string>,
): string {
  const quoted = cutAfter(key, MAX_QUOTED_NAME_CHARS)
  const unused = names.filter((name) => !Object.hasOwn(args, name) && !suggested.has(name))
  const [closest] = suggestNames(key, unused, 1)
  if (closest !== undefined) suggested.add(closest)
  if (closest !== undefined) return `unexpected argument '${quoted}'; did you mean '${closest}'?`
  if (names.length === 0) return `unexpected argument '${quoted}'; this tool takes no arguments`
  return `unexpected argument '${quoted}'; accepted: ${names.join(', ')}`
}

export interface ListedProperties {
  /** Every property named by the schema (its own `properties`, and those of allOf/anyOf/oneOf branches). */
  properties: Map<string, unknown>
  required: Set<string>
  patterns: (LinearRegExp | undefined)[]
  /** `additionalProperties` true or a schema, somewhere it applies: extras are the server's business. */
  openEnded: boolean
}

/**
 * What each schema says about argument names, worked out on its first call: keyed by the schema
 * object, so a refreshed tool list brings new entries and the old ones go with the old tools.
 */
const listedBySchema = new WeakMap<object, ListedProperties | undefined>()

/**
 * What a tool's inputSchema says about argument names: its properties (with those of its allOf /
 * anyOf / oneOf branches), the required ones, and whether others are allowed; undefined when it
 * says nothing (any name may be right).
 */
export function listedProperties(schema: Record<string, unknown>): ListedProperties | undefined {
  if (listedBySchema.has(schema)) return listedBySchema.get(schema)
  const listed = readListedProperties(schema)
  listedBySchema.set(schema, listed)
  return listed
}

/**
 * What the schema says about argument names; undefined when it says nothing (no `properties`
 * anywhere, as in `{type: "object"}`), in which case any name may be right.
 */
function readListedProperties(schema: Record<string, unknown>): ListedProperties | undefined {
  const listed: ListedProperties = {
    properties: new Map(),
    required: new Set(),
    patterns: [],
    openEnded: false,
  }
  let describesNames = false
  const visit = (node: unknown, depth: number, isBranch: boolean) => {
    const resolved = followRefs(schema, node)
    if (!isRecord(resolved) || depth > 4) return
    if (isRecord(resolved.properties)) {
      describesNames = true
      for (const [name, property] of Object.entries(resolved.properties)) {
        if (!listed.properties.has(name)) listed.properties.set(name, property)
      }
    }
    if (!isBranch && Array.isArray(resolved.required)) {
      for (const name of resolved.required) if (typeof name === 'string') listed.required.add(name)
    }
    if (isRecord(resolved.patternProperties)) {
      describesNames = true
      for (const pattern of Object.keys(resolved.patternProperties)) listed.patterns.push(safeRegExp(pattern))
    }
    const extra = resolved.additionalProperties ?? resolved.unevaluatedProperties
    if (extra === true || isRecord(extra)) listed.openEnded = true
    if (Array.isArray(resolved.allOf)) for (const part of resolved.allOf) visit(part, depth + 1, isBranch)
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = resolved[key]
      if (Array.isArray(branches)) for (const branch of branches) visit(branch, depth + 1, true)
    }
  }
  visit(schema, 0, false)
  return describesNames ? listed : undefined
}

/**
 * `args` without the optional arguments passed as `None` (null) whose schema does not accept null;
 * a required argument keeps its null, so validation names it.
 */
function withoutNullOptionals(
  args: Record<string, unknown>,
  listed: ListedProperties | undefined,
  root: Record<string, unknown>,
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined
  for (const [key, value] of Object.entries(args)) {
    if (value !== null || listed?.required.has(key)) continue
    const property = listed?.properties.get(key)
    if (property !== undefined && acceptsNull(root, property, 0)) continue
    out ??= {...args}
    delete out[key]
  }
  return out ?? args
}

/** Whether a property schema plainly allows null (type null, nullable, a null branch, or no type at all). */
function acceptsNull(root: Record<string, unknown>, node: unknown, depth: number): boolean {
  const schema = followRefs(root, node)
  if (schema === true) return true
  if (!isRecord(schema) || depth > 8) return false
  if (schema.nullable === true) return true
  if (Object.hasOwn(schema, 'const')) return schema.const === null
  if (Array.isArray(schema.enum)) return schema.enum.includes(null)
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key]
    if (Array.isArray(branches)) return branches.some((branch) => acceptsNull(root, branch, depth + 1))
  }
  const {type} = schema
  if (type === undefined) return !('$ref' in schema)
  return type === 'null' || (Array.isArray(type) && type.includes('null'))
}

/**
 * Patterns run on the linear-time engine: a server's `^(a+)+$` must not stall on a program's key.
 * One it cannot run may match anything here; validation refuses its schema with the reason.
 */
function safeRegExp(pattern: string): LinearRegExp | undefined {
  try {
    return linearRegExp(pattern)
  } catch (error) {
    return error instanceof UnsupportedPatternError ? {test: () => true} : undefined
  }
}
