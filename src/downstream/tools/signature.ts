/**
 * The Python call a program writes for a tool, as `inspect_tool` shows it (SPEC §5):
 * `await mcp__fin__query(*, ticker: str, limit: int = 4) -> dict`.
 *
 * Tools take keyword arguments only. A property whose name cannot be written as a Python keyword
 * argument (a keyword such as `class`, or not an identifier, such as `max-results`) is shown in a
 * trailing `**{'class': str, 'max-results': int = 10}` group: that is how a program passes it
 * (`**{'class': 'x'}`), and the group is visibly not plain Python, so the model does not write `class=`.
 */

import {isRecord} from '../../shared/guards.js'
import {refTarget} from '../calls/schema-ref.js'

/** A JSON Schema as a tool declares it; only the keywords signatures use are looked at. */
export type JsonSchema = {readonly [keyword: string]: unknown}

const MAX_DEPTH = 8
/** Objects nested deeper than this (in schema steps) are shown as `dict`, not by their keys. */
const MAX_SHAPE_DEPTH = 3
/** Longest `{"key": T, ...}` shape of a parameter; of a return type. Keys past it become `...`. */
export const MAX_PARAM_SHAPE_CHARS = 120
export const MAX_RETURN_SHAPE_CHARS = 200

// Python 3 hard keywords; soft keywords (match, case, type, _) are valid argument names.
const PYTHON_KEYWORDS = new Set([
  'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else',
  'except', 'False', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'None',
  'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'True', 'try', 'while', 'with', 'yield',
]) // prettier-ignore

const IDENTIFIER = /^[\p{XID_Start}_]\p{XID_Continue}*$/u

/** Whether `name=value` is valid Python in a call (Python also NFKC-normalises identifiers). */
export function isPythonKeywordArgument(name: string): boolean {
  return IDENTIFIER.test(name) && !PYTHON_KEYWORDS.has(name) && name.normalize('NFKC') === name
}

/** `await <name>(*, required..., optional = default...) -> dict | Any`. */
export function pythonSignature(
  name: string,
  inputSchema: JsonSchema,
  outputSchema?: JsonSchema,
  /** The return type when there is no outputSchema, e.g. from the results observed. */
  observedReturn?: string,
): string {
  const properties = asSchema(inputSchema['properties']) ?? {}
  const required = new Set(stringArray(inputSchema['required']))

  // Required first, in schema order (including any required name the schema forgot to describe), then optional.
  const names = Object.keys(properties)
  const ordered = [
    ...names.filter((n) => required.has(n)),
    ...[...required].filter((n) => !Object.hasOwn(properties, n)),
    ...names.filter((n) => !required.has(n)),
  ]

  const plain: string[] = []
  const unpacked: string[] = []
  for (const param of ordered) {
    const schema = properties[param]
    const type = pythonType(schema, inputSchema)
    let rendered: string
    if (required.has(param)) rendered = type
    else if (isRecord(schema) && Object.hasOwn(schema, 'default')) {
      rendered = `${type} = ${pythonLiteral(schema['default'])}`
    } else {
      // Passing None leaves the argument out (SPEC §6), so None is always a valid value here.
      rendered = `${optional(type)} = None`
    }
    if (isPythonKeywordArgument(param)) plain.push(`${param}: ${rendered}`)
    else unpacked.push(`${pythonLiteral(param)}: ${rendered}`)
  }

  const parts: string[] = []
  if (plain.length > 0) parts.push('*', ...plain)
  if (unpacked.length > 0) parts.push(`**{${unpacked.join(', ')}}`)
  const returns = outputSchema || !observedReturn ? returnType(outputSchema) : observedReturn
  return `await ${name}(${parts.join(', ')}) -> ${returns}`
}

/** `T | None`, unless None is already a member (or the type is Any). */
function optional(type: string): string {
  if (type === 'Any' || type.split(' | ').includes('None')) return type
  return `${type} | None`
}

/**
 * What the program gets back: `dict` for an object output schema, `Any` without one. The FastMCP
 * wrapper `{"result": v}` is unwrapped by the result parser, so its schema shows v's type instead
 * (`Any` when v is a string, which the parser JSON-decodes when it can).
 */
function returnType(outputSchema: JsonSchema | undefined): string {
  if (!outputSchema || !isObjectSchema(outputSchema)) return 'Any'
  const properties = asSchema(outputSchema['properties'])
  const keys = properties ? Object.keys(properties) : []
  if (properties && keys.length === 1 && keys[0] === 'result') {
    const inner = typeMembers(properties['result'], outputSchema, 0, MAX_RETURN_SHAPE_CHARS)
    return inner.includes('str') ? 'Any' : inner.join(' | ')
  }
  return objectShape(outputSchema, outputSchema, 0, MAX_RETURN_SHAPE_CHARS)
}

/**
 * `{"content": str}`, `{"name": str, "tags": list[str], ...}`: an object schema's keys and their
 * types, within `maxChars` (the keys that do not fit become `...`); `dict` when it lists no
 * properties, nests too deep, or not even one key fits.
 */
function objectShape(schema: JsonSchema, root: JsonSchema, depth: number, maxChars: number): string {
  const properties = asSchema(schema['properties'])
  const keys = properties ? Object.keys(properties) : []
  if (!properties || keys.length === 0 || depth >= MAX_SHAPE_DEPTH) return 'dict'
  const parts: string[] = []
  let length = 2
  for (const key of keys) {
    const part = `${JSON.stringify(key)}: ${typeMembers(properties[key], root, depth + 1, maxChars).join(' | ')}`
    const more = parts.length + 1 < keys.length ? ', ...'.length : 0
    if (length + part.length + (parts.length > 0 ? 2 : 0) + more > maxChars) break
    parts.push(part)
    length += part.length + (parts.length > 1 ? 2 : 0)
  }
  if (parts.length === 0) return 'dict'
  return `{${parts.join(', ')}${parts.length < keys.length ? ', ...' : ''}}`
}

function isObjectSchema(schema: JsonSchema): boolean {
  const {type} = schema
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || 'properties' in schema
}

/** The Python annotation for a property schema; `Any` when the schema says nothing usable. */
export function pythonType(schema: unknown, root: JsonSchema = {}): string {
  return typeMembers(schema, root, 0, MAX_PARAM_SHAPE_CHARS).join(' | ')
}

/** The members of the annotation's union, e.g. `['str', 'None']`; `['Any']` when unknown. */
function typeMembers(schema: unknown, root: JsonSchema, depth: number, maxChars: number): string[] {
  if (!isRecord(schema) || depth > MAX_DEPTH) return ['Any']
  const recurse = (s: unknown) => typeMembers(s, root, depth + 1, maxChars)
  const object = () => objectShape(schema, root, depth, maxChars)

  const ref = schema['$ref']
  if (typeof ref === 'string') return recurse(refTarget(root, ref))

  let members: string[]
  if (Object.hasOwn(schema, 'const')) members = literalMembers([schema['const']])
  else if (Array.isArray(schema['enum'])) members = literalMembers(schema['enum'])
  else if (Array.isArray(schema['anyOf'])) members = union(schema['anyOf'].map(recurse))
  else if (Array.isArray(schema['oneOf'])) members = union(schema['oneOf'].map(recurse))
  else if (Array.isArray(schema['allOf']) && schema['allOf'].length === 1)
    members = recurse(schema['allOf'][0])
  else if (Array.isArray(schema['type'])) {
    members = union(
      schema['type'].map((t) => [typeof t === 'string' ? typeName(t, schema, recurse, object) : 'Any']),
    )
  } else if (typeof schema['type'] === 'string') members = [typeName(schema['type'], schema, recurse, object)]
  else if ('properties' in schema || 'additionalProperties' in schema) members = [object()]
  else if ('items' in schema) members = [typeName('array', schema, recurse, object)]
  else members = ['Any']

  return schema['nullable'] === true ? union([members, ['None']]) : members
}

function typeName(
  type: string,
  schema: JsonSchema,
  recurse: (s: unknown) => string[],
  object: () => string,
): string {
  switch (type) {
    case 'string': {
      return 'str'
    }
    case 'integer': {
      return 'int'
    }
    case 'number': {
      return 'float'
    }
    case 'boolean': {
      return 'bool'
    }
    case 'null': {
      return 'None'
    }
    case 'object': {
      return object()
    }
    case 'array': {
      const {items} = schema
      const item = isRecord(items) ? recurse(items) : ['Any']
      return item.includes('Any') ? 'list' : `list[${item.join(' | ')}]`
    }
    default: {
      return 'Any'
    }
  }
}

/** Members of `A | B`: duplicates dropped, `None` last; `Any` absorbs everything. */
function union(alternatives: readonly string[][]): string[] {
  const members = [...new Set(alternatives.flat())]
  if (members.length === 0 || members.includes('Any')) return ['Any']
  const withoutNone = members.filter((m) => m !== 'None')
  return withoutNone.length < members.length ? [...withoutNone, 'None'] : withoutNone
}

/** `Literal['a', 'b']`, with a JSON null member as `None`; other values (objects, arrays) make it `Any`. */
function literalMembers(values: readonly unknown[]): string[] {
  const literals = values.filter(
    (v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean',
  )
  const hasNull = values.includes(null)
  if (values.length === 0 || literals.length + (hasNull ? 1 : 0) !== values.length) return ['Any']
  const members = literals.length > 0 ? [`Literal[${literals.map(pythonLiteral).join(', ')}]`] : []
  return union([members, hasNull ? ['None'] : []])
}

/** A JSON value written as Python would write it: True/False/None, single-quoted strings, lists, dicts. */
export function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'number') return pythonNumber(value)
  if (typeof value === 'string') return pythonString(value)
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`
  if (typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${pythonString(k)}: ${pythonLiteral(v)}`)
    return `{${entries.join(', ')}}`
  }
  return 'None'
}

function pythonNumber(n: number): string {
  if (Number.isNaN(n)) return "float('nan')"
  if (!Number.isFinite(n)) return n > 0 ? "float('inf')" : "-float('inf')"
  if (Number.isSafeInteger(n)) return String(n)
  // Python writes exponents with at least two digits: 1e-07, 1e+21.
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2')
}

/** Like Python's repr(): single quotes unless the text has one and no double quote. */
function pythonString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'"
  let out = quote
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    switch (char) {
      case '\\': {
        out += '\\\\'
        break
      }
      case quote: {
        out += `\\${quote}`
        break
      }
      case '\n': {
        out += '\\n'
        break
      }
      case '\r': {
        out += '\\r'
        break
      }
      case '\t': {
        out += '\\t'
        break
      }
      default: {
        if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0xad) out += `\\x${hex(code, 2)}`
        else if (code === 0x20_28 || code === 0x20_29) out += `\\u${hex(code, 4)}`
        else out += char
      }
    }
  }
  return out + quote
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0')
}

function asSchema(v: unknown): {readonly [name: string]: unknown} | undefined {
  return isRecord(v) ? v : undefined
}

function stringArray(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []
}
