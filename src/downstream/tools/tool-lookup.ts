import type {HiddenTool, ToolInfo} from '../types.js'

import {cutAfter} from '../../shared/cut.js'
import {MAX_SUGGESTED_NAME_CHARS} from '../../shared/limits.js'
import {suggestNames} from '../../shared/naming.js'

/** What a lookup needs: the tools by name, all of them for suggestions, and the hidden ones. */
export interface ToolSource {
  getTool(name: string): ToolInfo | undefined
  listTools(): readonly ToolInfo[]
  hiddenTool?(name: string): HiddenTool | undefined
}

/**
 * A tool found by name, or the message that says why not: hidden by the user's rule (named), or
 * unknown (with the closest names).
 */
export type ToolLookup =
  | {tool: ToolInfo; unknown?: undefined; hidden?: undefined}
  | {tool?: undefined; unknown: string; hidden?: HiddenTool}

/** The one lookup of a tool by name for calls, inspect_tool and the CLI: the tool, or why not. */
export function lookupTool(source: ToolSource, name: string): ToolLookup {
  const tool = source.getTool(name)
  if (tool) return {tool}
  const names = source.listTools().map((t) => t.name)
  const hidden = source.hiddenTool?.(name)
  if (hidden) return {unknown: hiddenToolMessage(name, hidden, names.length), hidden}
  return {unknown: unknownToolMessage(name, names)}
}

/**
 * A hidden tool is never answered with "did you mean" another tool (of its server, most likely):
 * that invites a workaround. A tool a Claude Code deny rule hides is named as hidden, with the rule
 * and its file; one tools.allow / tools.block leaves out is unknown, as SPEC §4 says.
 */
function hiddenToolMessage(name: string, hidden: HiddenTool, available: number): string {
  const shown = echoedName(name)
  if (hidden.told) return `Tool ${shown} is ${hidden.reason}: the user does not allow calls to it.`
  return available === 0
    ? `Unknown tool ${shown}: no tools are available right now.`
    : `Unknown tool ${shown}; list_callable_tools() shows the ${available} available tools.`
}

/** `server 'fin' is not connected (connecting)`: the tool exists, its server is down. */
export function notConnectedMessage(server: string, reason: string): string {
  return `server '${server}' is not connected (${reason})`
}

/** `Unknown tool 'mcp__fin__qeury'. Did you mean mcp__fin__query?`, or a pointer to the tool list. */
export function unknownToolMessage(name: string, names: readonly string[]): string {
  const suggestions = suggestNames(name, names, 3)
  const shown = echoedName(name)
  if (suggestions.length > 0) return `Unknown tool ${shown}. Did you mean ${joinOr(suggestions)}?`
  if (names.length === 0) return `Unknown tool ${shown}: no tools are available right now.`
  return `Unknown tool ${shown}, and no tool has a similar name; list_callable_tools() shows the ${names.length} available tools.`
}

/** A name quoted as an error repeats it: a huge one by its head and length. */
function echoedName(name: string): string {
  return name.length <= MAX_SUGGESTED_NAME_CHARS
    ? `'${name}'`
    : `'${cutAfter(name, MAX_SUGGESTED_NAME_CHARS)}' (${name.length} characters)`
}

function joinOr(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}
