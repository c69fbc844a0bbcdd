import type {ToolHost, ToolInfo} from '../../downstream/index.js'

import {isRecord} from '../../shared/guards.js'
import {counted} from '../../shared/plural.js'

/** Tools named in the budget's error as ways to do more per call. */
const MAX_SUGGESTED = 3
/** Words in a tool's name that say it takes many items, or narrows what it returns. */
const BATCHING_NAME = /(?:^|_)(?:batch|bulk|multiple|many|all)(?:_|$)/i
const FILTERING_NAME = /(?:^|_)(?:search|query|filter|find)(?:_|$)/i

/**
 * The error of a call over execution.max_tool_calls (SPEC §6): how many calls the program sent, how
 * many were refused so far, and the tools of the same server that do more per call, if any.
 */
export function budgetError(
  host: ToolHost,
  tool: string,
  counts: {sent: number; refused: number; max: number},
): string {
  const {sent, refused, max} = counts
  const others = morePerCallTools(host, tool)
  const offer =
    others.length > 0
      ? `; ${host.getTool(tool)?.server ?? 'its server'} also offers ${others.join(', ')}`
      : ''
  return (
    `tool call budget exhausted: this program sent ${counted(sent, 'call')} (execution.max_tool_calls: ${max}) ` +
    `and ${refused} more ${refused === 1 ? 'was' : 'were'} refused, never sent; ` +
    `do more per call (filters, batches) or split the work into several programs${offer}`
  )
}

/** `mcp__fs__read_multiple_files (takes lists)`, `mcp__fs__search_files (filters)`: at most three. */
function morePerCallTools(host: ToolHost, name: string): string[] {
  const tool = host.getTool(name)
  if (!tool) return []
  const batching: string[] = []
  const filtering: string[] = []
  for (const other of host.listTools()) {
    if (other.server !== tool.server || other.name === tool.name) continue
    if (BATCHING_NAME.test(other.tool) || takesListOf(other, tool))
      batching.push(`${other.name} (takes lists)`)
    else if (FILTERING_NAME.test(other.tool)) filtering.push(`${other.name} (filters)`)
  }
  return [...batching, ...filtering].slice(0, MAX_SUGGESTED)
}

/**
 * Whether `other` takes a list of what `tool` takes one of: an array parameter named as the plural
 * of one of `tool`'s (`path` → `paths`, `entity` → `entities`).
 */
function takesListOf(other: ToolInfo, tool: ToolInfo): boolean {
  const own = tool.inputSchema.properties
  const theirs = other.inputSchema.properties
  if (!isRecord(own) || !isRecord(theirs)) return false
  const plurals = new Set(
    Object.keys(own).flatMap((name) => [`${name}s`, `${name}es`, `${name.slice(0, -1)}ies`]),
  )
  return Object.entries(theirs).some(
    ([key, schema]) => plurals.has(key) && isRecord(schema) && schema.type === 'array',
  )
}
