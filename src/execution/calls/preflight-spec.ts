import type {ToolHost, ToolInfo} from '../../downstream/index.js'

import {describeTool, followRefs, listedProperties, lookupTool} from '../../downstream/index.js'
import {cutAfter} from '../../shared/cut.js'
import {isRecord} from '../../shared/guards.js'
import {
  MAX_PREFLIGHT_ENUM_CHARS,
  MAX_PREFLIGHT_ENUM_VALUES,
  MAX_PREFLIGHT_NAMES,
  MAX_PREFLIGHT_PARAMS,
} from '../../shared/limits.js'
import {serverPrefix, suggestNames} from '../../shared/naming.js'

/**
 * What the preflight check (SPEC §6.1, runner/preflight.py) needs to know of the tools a program's
 * text names, sent in the run message: the runner reads the program's AST, the parent knows the
 * schemas. Built from the text alone (every `mcp__…` word, comments and strings included: a name
 * too many costs a few bytes), bounded so that the run message stays small whatever the text.
 */
export interface PreflightSpec {
  /** The tools named, by namespaced name. */
  tools: Record<string, ToolSpec>
  /**
   * Names that are no tool: the message that says so (closest names suggested), and the signature
   * of the closest tool, or null.
   */
  unknown: Record<string, [string, string | null]>
}

export interface ToolSpec {
  /** As inspect_tool shows it. */
  signature: string
  /** Absent when the schema says nothing about names (any may be right). */
  params?: Record<string, ParamSpec>
  required: string[]
  /** Other names are allowed (additionalProperties, patternProperties): unknown ones are not refused. */
  open: boolean
}

export interface ParamSpec {
  /** JSON types a value may have; absent when the schema says nothing plain (anyOf, $ref chains...). */
  types?: string[]
  /** The allowed values, when the schema lists at most `MAX_PREFLIGHT_ENUM_VALUES` plain ones. */
  enum?: unknown[]
}

const MAX_SIGNATURE_CHARS = 600
const JSON_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'])
const TOOL_WORD = /\bmcp__\w+/g

/** The preflight part of the run message for `code`. */
export function preflightSpec(code: string, host: ToolHost): PreflightSpec {
  const spec: PreflightSpec = {tools: {}, unknown: {}}
  const names = new Set<string>()
  for (const [name] of code.matchAll(TOOL_WORD)) {
    if (names.has(name)) continue
    if (names.size >= MAX_PREFLIGHT_NAMES) break
    names.add(name)
  }
  for (const name of names) {
    const tool = host.getTool(name)
    if (tool) spec.tools[name] = toolSpec(tool, host)
    else {
      const problem = unknownProblem(name, host)
      if (problem !== undefined) spec.unknown[name] = problem
    }
  }
  return spec
}

/**
 * Why `name` is no tool, or undefined when that is for run time to say: a name of a server that is
 * down or still starting (the program may catch the ToolError), or of a tool a rule hides.
 */
function unknownProblem(name: string, host: ToolHost): [string, string | null] | undefined {
  const down = host.unavailableServers().some((server) => name.startsWith(serverPrefix(server.name)))
  if (down) return undefined
  const lookup = lookupTool(host, name)
  if (lookup.tool || lookup.hidden) return undefined
  const [closest] = suggestNames(
    name,
    host.listTools().map((tool) => tool.name),
    1,
  )
  const tool = closest === undefined ? undefined : host.getTool(closest)
  return [lookup.unknown, tool ? toolSpec(tool, host).signature : null]
}

function toolSpec(tool: ToolInfo, host: ToolHost): ToolSpec {
  const full = describeTool(tool, host.observedResult?.(tool.name)).signature
  const signature = cutAfter(full, MAX_SIGNATURE_CHARS)
  const listed = listedProperties(tool.inputSchema)
  if (!listed || listed.properties.size > MAX_PREFLIGHT_PARAMS) return {signature, required: [], open: true}
  const params: Record<string, ParamSpec> = {}
  for (const [name, property] of listed.properties) params[name] = paramSpec(tool.inputSchema, property)
  return {
    signature,
    params,
    required: [...listed.required],
    open: listed.openEnded || listed.patterns.length > 0,
  }
}

function paramSpec(root: Record<string, unknown>, property: unknown): ParamSpec {
  const schema = followRefs(root, property)
  if (!isRecord(schema)) return {}
  const spec: ParamSpec = {}
  const {type} = schema
  const types: unknown[] = Array.isArray(type) ? (type as unknown[]) : [type].filter((t) => t !== undefined)
  // Only a plain type list: a schema that combines others says more than a type.
  const combined = ['anyOf', 'oneOf', 'allOf', 'not', 'if'].some((key) => key in schema)
  if (!combined && types.length > 0 && types.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) {
    spec.types = types as string[]
    if (schema.nullable === true && !spec.types.includes('null')) spec.types.push('null')
  }
  const values = schema.enum
  if (
    !combined &&
    Array.isArray(values) &&
    values.length <= MAX_PREFLIGHT_ENUM_VALUES &&
    values.every((v) => v === null || ['boolean', 'number', 'string'].includes(typeof v)) &&
    JSON.stringify(values).length <= MAX_PREFLIGHT_ENUM_CHARS
  )
    spec.enum = values
  return spec
}
