import type {ToolHost, ToolInfo} from './types.js'

import {suggestNames} from './naming.js'
import {pythonSignature} from './signature.js'

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
  /** Present when calls ask the user first (SPEC §12): why, and how a refusal surfaces. */
  needs_approval?: string
}

export const NO_OUTPUT_SCHEMA_NOTE =
  'This tool declares no outputSchema, so the shape of its result is unknown: inspect the return value at runtime ' +
  '(e.g. print(type(r)), list(r) or r[:1] on a first call) before relying on its structure.'

/** `describeTool` with the approval note the host gives (inspect_tool, `inspect` and the helper agree). */
export function describeToolFor(host: Pick<ToolHost, 'approvalNote'>, tool: ToolInfo): ToolDescription {
  const description = describeTool(tool)
  const note = host.approvalNote?.(tool)
  return note === undefined ? description : {...description, needs_approval: note}
}

export function describeTool(tool: ToolInfo): ToolDescription {
  const signature = pythonSignature(tool.name, tool.inputSchema, tool.outputSchema)
  if (tool.outputSchema) {
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      signature,
    }
  }
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: null,
    note: NO_OUTPUT_SCHEMA_NOTE,
    signature,
  }
}

/** `Unknown tool 'mcp__fin__qeury'. Did you mean mcp__fin__query?`, or a pointer to the tool list. */
export function unknownToolMessage(name: string, names: readonly string[]): string {
  const suggestions = suggestNames(name, names, 3)
  if (suggestions.length > 0) return `Unknown tool '${name}'. Did you mean ${joinOr(suggestions)}?`
  if (names.length === 0) return `Unknown tool '${name}': no tools are available right now.`
  return `Unknown tool '${name}', and no tool has a similar name; list_callable_tools() shows the ${names.length} available tools.`
}

function joinOr(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}
