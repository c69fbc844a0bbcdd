import {isDeepStrictEqual} from 'node:util'

import {
  type CallToolOptions,
  type ServerStatus,
  ToolError,
  type ToolHost,
  type ToolInfo,
} from '../downstream/index.js'
import {cutResult, type Recording} from './recording.js'

/** `mcp__fin__query` → `{server: 'fin', tool: 'query'}`. */
function splitName(name: string): {server: string; tool: string} {
  const rest = name.slice('mcp__'.length)
  const cut = rest.indexOf('__')
  return cut === -1 ? {server: rest, tool: ''} : {server: rest.slice(0, cut), tool: rest.slice(cut + 2)}
}

/**
 * A host that answers a program's calls from a recording (SPEC §17: `programs test` contacts no
 * server): each call gets the recorded answer of the first unused call of the same tool with the
 * same arguments, else of the same tool; a call the recording has no answer for fails.
 */
export function replayHost(recording: Recording, named: readonly string[] = []): ToolHost {
  const used = new Set<number>()
  const tools = new Map<string, ToolInfo>()
  // The tools the program names but did not call in the recorded run exist too (a branch not taken).
  for (const name of [...recording.calls.map((call) => call.tool), ...named]) {
    if (!tools.has(name))
      tools.set(name, {
        name,
        ...splitName(name),
        description: 'A tool as recorded.',
        inputSchema: {type: 'object'},
      })
  }
  const servers = [...new Set([...tools.values()].map((tool) => tool.server))]
  return {
    listTools: () => [...tools.values()],
    getTool: (name) => tools.get(name),
    unavailableServers: () => [],
    serverStatus: (): ServerStatus[] =>
      servers.map((name) => ({
        name,
        transport: 'stdio',
        connected: true,
        tools: [...tools.values()].filter((tool) => tool.server === name).length,
        lastError: null,
        attempts: 0,
        since: new Date(0).toISOString(),
      })),
    async waitForInitialConnections() {},
    async callTool(name: string, args: Record<string, unknown>, _options: CallToolOptions) {
      const candidates = recording.calls
        .map((call, index) => ({call, index}))
        .filter(({call, index}) => call.tool === name && !used.has(index))
      const found = candidates.find(({call}) => isDeepStrictEqual(call.args, args)) ?? candidates[0]
      if (!found)
        throw new ToolError(
          `the recording has no (more) answers of ${name}: the program calls differently than when it was saved`,
          {
            kind: 'unknown_tool',
          },
        )
      used.add(found.index)
      const {call} = found
      if (call.error !== undefined) throw new ToolError(call.error)
      const cut = cutResult(call.result)
      if (cut)
        throw new ToolError(`this result (${cut.bytes} bytes) was too large to record: test with --live`, {
          kind: 'too_large',
        })
      return structuredClone(call.result) ?? null
    },
  }
}
