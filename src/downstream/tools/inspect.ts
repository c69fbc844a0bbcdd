import {minimatch} from 'minimatch'

import type {HiddenTool, ToolInfo} from '../types.js'

import {cutAfter} from '../../shared/cut.js'
import {MAX_INSPECT_PATTERN_CHARS, MAX_INSPECTED} from '../../shared/limits.js'
import {normalisePattern} from '../../shared/naming.js'
import {shapeReturnType} from './shapes.js'
import {shareTypes, typesBySignature} from './shared-types.js'
import {pythonSignature} from './signature.js'
import {lookupTool, type ToolLookup} from './tool-lookup.js'
import {firstLine} from './tool-search.js'

/**
 * What `inspect_tool` returns (SPEC §5), shared by the `inspect` command, the `inspect_tool` MCP
 * tool and the in-program helper so the three always agree.
 */
export interface ToolDescription {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  /** `null` when the server declares none; `note` then says what to do instead. */
  outputSchema: Record<string, unknown> | null
  note?: string
  /** The Python call as a program writes it, e.g. `await mcp__fin__query(*, ticker: str, limit: int = 4) -> dict`. */
  signature: string
  /** Without an outputSchema: the shape of the results seen so far (types, keys, list lengths). */
  observed_result?: unknown
  /** The server's config name and the tool's own name there. */
  server: string
  original_name: string
  /** Present when calls ask the user first (SPEC §12): why, and how a refusal surfaces. */
  needs_approval?: string
}

/**
 * `inspect_tool(..., brief=True)`: the call and what the tool does, in one line each; a dict type
 * shared by several tools of one server is named, and defined in `types` of its first tool listed.
 */
export interface BriefToolDescription {
  name: string
  signature: string
  description: string
  types?: Record<string, string>
  /** Calls ask the user first (the full inspect says why). */
  needs_approval?: true
}

export const NO_OUTPUT_SCHEMA_NOTE =
  'This tool declares no outputSchema, so the shape of its result is unknown: inspect the return value at runtime ' +
  '(e.g. print(type(r)), list(r) or r[:1] on a first call) before relying on its structure.'

export const OBSERVED_NOTE =
  'This tool declares no outputSchema; observed_result is the shape of its results seen so far ' +
  '(types, keys, list lengths), which may vary.'

/** A description with the approval note of its tool, when calls to it ask the user first. */
export function withApprovalNote<T extends {needs_approval?: string}>(
  description: T,
  note: string | undefined,
): T {
  return note === undefined ? description : {...description, needs_approval: note}
}

/** `observed` is the shape seen for a tool without an outputSchema (ToolHost.observedResult). */
export function describeTool(tool: ToolInfo, observed?: unknown): ToolDescription {
  const common = {name: tool.name, description: tool.description}
  const origin = {server: tool.server, original_name: tool.tool}
  if (tool.outputSchema) {
    const signature = pythonSignature(tool.name, tool.inputSchema, tool.outputSchema)
    return {...common, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, signature, ...origin}
  }
  const returns = observed === undefined ? undefined : shapeReturnType(observed)
  const signature = pythonSignature(tool.name, tool.inputSchema, undefined, returns)
  return {
    ...common,
    inputSchema: tool.inputSchema,
    outputSchema: null,
    note: observed === undefined ? NO_OUTPUT_SCHEMA_NOTE : OBSERVED_NOTE,
    signature,
    ...(observed === undefined ? {} : {observed_result: observed}),
    ...origin,
  }
}

export function briefDescription(tool: ToolInfo, observed?: unknown): BriefToolDescription {
  const {signature} = describeTool(tool, observed)
  return {name: tool.name, signature, description: firstLine(tool.description)}
}

/** What `inspect_tool` is asked: one name, or several names and `mcp__server__*` globs. */
export interface InspectRequest {
  tool_name?: unknown
  tool_names?: unknown
  brief?: unknown
}

export interface InspectSource {
  listTools(): ToolInfo[]
  getTool(name: string): ToolInfo | undefined
  observedResult?(name: string): unknown
  /** Whether calls to the tool ask the user first (SPEC §12). */
  approvalNote?(tool: ToolInfo): string | undefined
  hiddenTool?(name: string): HiddenTool | undefined
}

/**
 * `inspect_tool` for the MCP tool and the in-program helper alike: one description for
 * `tool_name`, a list for `tool_names` (names or globs, unknown ones answered with an `error`
 * naming the closest), short ones with `brief`. Throws (message for the model) on a bad request
 * or when nothing matched.
 */
export function inspectTools(
  source: InspectSource,
  request: InspectRequest,
): BriefToolDescription | BriefToolDescription[] | ToolDescription | ToolDescription[] | unknown[] {
  const brief = request.brief === true
  const describe = (tool: ToolInfo) =>
    brief
      ? briefWithApproval(
          briefDescription(tool, source.observedResult?.(tool.name)),
          source.approvalNote?.(tool),
        )
      : withApprovalNote(describeTool(tool, source.observedResult?.(tool.name)), source.approvalNote?.(tool))
  const {tool_name: single, tool_names: many} = request
  if (many === undefined || many === null) {
    if (typeof single !== 'string')
      throw new InspectError(
        'give tool_name (a string) or tool_names (a list, or a glob like mcp__server__*)',
      )
    const found = lookupNormalised(source, single)
    if (!found.tool) throw new InspectError(found.unknown, found.hidden?.told ? 'denied' : 'unknown_tool')
    return describe(found.tool)
  }
  const patterns = typeof many === 'string' ? [many] : many
  if (!Array.isArray(patterns) || !patterns.every((p) => typeof p === 'string') || patterns.length === 0)
    throw new InspectError('tool_names must be a list of tool names, or a glob like mcp__server__*')
  const out: unknown[] = []
  const seen = new Set<string>()
  for (const pattern of (patterns as string[]).slice(0, MAX_INSPECTED)) {
    const matched = matchTools(source, pattern)
    if (typeof matched === 'string') {
      out.push({name: pattern, error: matched})
      continue
    }
    for (const tool of matched) {
      if (seen.has(tool.name)) continue
      seen.add(tool.name)
      out.push(describe(tool))
    }
  }
  if (seen.size === 0)
    throw new InspectError(out.map((entry) => (entry as {error: string}).error).join('; '), 'unknown_tool')
  return brief ? withSharedTypes(out, source) : out
}

function briefWithApproval(
  description: BriefToolDescription,
  note: string | undefined,
): BriefToolDescription {
  return note === undefined ? description : {...description, needs_approval: true}
}

/** Brief entries with the dict types shared by a server's tools named, each defined where first used. */
function withSharedTypes(entries: unknown[], source: InspectSource): unknown[] {
  const byServer = new Map<string, BriefToolDescription[]>()
  for (const entry of entries) {
    const tool =
      'signature' in (entry as object) ? source.getTool((entry as BriefToolDescription).name) : undefined
    if (!tool) continue
    byServer.set(tool.server, [...(byServer.get(tool.server) ?? []), entry as BriefToolDescription])
  }
  const renamed = new Map<BriefToolDescription, BriefToolDescription>()
  for (const briefs of byServer.values()) {
    const shared = shareTypes(briefs.map((b) => b.signature))
    const defined = typesBySignature(shared)
    for (const [index, b] of briefs.entries()) {
      const types = defined[index]!
      const withTypes = Object.keys(types).length > 0 ? {types} : {}
      renamed.set(b, {
        name: b.name,
        signature: shared.signatures[index]!,
        ...withTypes,
        description: b.description,
        ...(b.needs_approval ? {needs_approval: b.needs_approval} : {}),
      })
    }
  }
  return entries.map((entry) => renamed.get(entry as BriefToolDescription) ?? entry)
}

/** The tools a name or glob names, or the error entry's message when there are none. */
function matchTools(source: InspectSource, pattern: string): string | ToolInfo[] {
  if (!isGlob(pattern)) {
    const found = lookupNormalised(source, pattern)
    return found.tool ? [found.tool] : found.unknown
  }
  // Normalised as tools.allow is: the server's own spelling (`mcp__my-srv__*`) matches too.
  // Only a pattern of sane length: the program's text can be any size (SPEC §15).
  if (pattern.length > MAX_INSPECT_PATTERN_CHARS)
    return `no tool matches '${cutAfter(pattern, MAX_INSPECT_PATTERN_CHARS)}'`
  const glob = normalisePattern(pattern)
  const tools = source.listTools().filter((tool) => minimatch(tool.name, glob, {dot: true}))
  return tools.length > 0 ? tools : `no tool matches '${pattern}'`
}

/** A tool by its name, or by the name normalised (`mcp__my-srv__get-x` is `mcp__my_srv__get_x`). */
function lookupNormalised(source: InspectSource, name: string): ToolLookup {
  const found = lookupTool(source, name)
  if (found.tool) return found
  if (name.length > MAX_INSPECT_PATTERN_CHARS) return found
  const normalised = normalisePattern(name)
  if (normalised === name) return found
  const again = lookupTool(source, normalised)
  return again.tool ? again : found
}

function isGlob(pattern: string): boolean {
  return /[*?[]/.test(pattern)
}

/** A request inspect_tool cannot answer: the message says what to ask instead. */
export class InspectError extends Error {
  override name = 'InspectError'
  constructor(
    message: string,
    readonly kind: 'denied' | 'invalid_arguments' | 'unknown_tool' = 'invalid_arguments',
  ) {
    super(message)
  }
}
