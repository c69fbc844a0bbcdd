import type {Client, Tool} from '@modelcontextprotocol/client'

import type {ToolHints, ToolInfo} from '../types.js'

import {dedupeTools, type NameClash} from '../../shared/naming.js'

/** Every tool of a connected server, all pages; `[]` for a server without the tools capability. */
export async function listServerTools(
  client: Client,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Tool[]> {
  // listTools() would log to stdout (console.debug) for a server without tools: stdout is the
  // protocol in `serve`, so check the capability first.
  if (!client.getServerCapabilities()?.tools) return []
  // Without a cursor the SDK walks every page (following nextCursor). 'bypass' keeps the SDK's
  // response cache empty, so callTool() does not validate outputSchema a second time: we do.
  const {tools} = await client.listTools(undefined, {cacheMode: 'bypass', signal, timeout: timeoutMs})
  return tools
}

/** A server's tools as programs see them (namespaced, clashes removed), and the clashes. */
export function toToolInfos(server: string, tools: Tool[]): {tools: ToolInfo[]; clashes: NameClash[]} {
  const {kept, clashes} = dedupeTools(server, tools)
  return {
    clashes,
    tools: kept.map(({name, tool}) => ({
      name,
      server,
      tool: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.outputSchema ? {outputSchema: tool.outputSchema as Record<string, unknown>} : {}),
      ...toolHints(tool),
    })),
  }
}

export function describeClash(clash: NameClash): string {
  const [kept, ...dropped] = clash.tools
  return `tools ${clash.tools.map((t) => `'${t}'`).join(', ')} all become ${clash.name}; keeping '${kept}', ignoring ${dropped.map((t) => `'${t}'`).join(', ')}`
}

/** Only boolean hints are kept: a server's malformed annotations never ask or exempt anything. */
function toolHints(tool: Tool): {annotations?: ToolHints} {
  const {destructiveHint, readOnlyHint, openWorldHint} = tool.annotations ?? {}
  const hints: ToolHints = {}
  if (typeof destructiveHint === 'boolean') hints.destructiveHint = destructiveHint
  if (typeof readOnlyHint === 'boolean') hints.readOnlyHint = readOnlyHint
  if (typeof openWorldHint === 'boolean') hints.openWorldHint = openWorldHint
  return Object.keys(hints).length > 0 ? {annotations: hints} : {}
}
