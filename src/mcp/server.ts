import {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'

import type {Runtime} from '../runtime.js'
import type {Logger} from '../shared/log.js'
import type {UpstreamBridge} from './upstream-bridge.js'

import {InspectError, inspectTools} from '../downstream/inspect.js'
import {callableTools, UnknownServerError} from '../downstream/tool-search.js'
import {startingText, type UnavailableServer} from '../downstream/types.js'
import {INITIAL_CONNECT_WAIT_MS} from '../shared/limits.js'
import {markStep, stepsOf} from '../shared/steps.js'
import {INSPECT_TOOL_DESCRIPTION, LIST_CALLABLE_TOOLS_DESCRIPTION} from './descriptions.js'
import {registerExecuteProgram} from './execute-program.js'
import {registerSavedProgramTools, savedProgramsLine} from './saved-program-tools.js'

const text = (value: string) => ({type: 'text' as const, text: value})

export function createMcpServer(
  runtime: Runtime,
  logger: Logger,
  version: string,
  upstream?: UpstreamBridge,
): McpServer {
  const server = new McpServer({name: 'ptc-mcp', version}, {capabilities: {tools: {}}})
  if (upstream) server.server.oninitialized = () => upstream.attach(server)
  const {registry} = runtime

  server.registerTool(
    'list_callable_tools',
    {
      description: LIST_CALLABLE_TOOLS_DESCRIPTION,
      inputSchema: z.object({
        query: z
          .string()
          .optional()
          .describe('Words to look for in tool names, descriptions and parameter names; best 20 first.'),
        server: z.string().optional().describe("Only this server's tools."),
      }),
    },
    async ({query, server: serverName}, ctx) => {
      const steps = stepsOf(ctx.mcpReq.id)
      markStep(steps, 'handler')
      await registry.waitForInitialConnections(INITIAL_CONNECT_WAIT_MS)
      let listing: ReturnType<typeof callableTools>
      try {
        const servers = registry.serverStatus().map((status) => status.name)
        listing = callableTools(registry.listTools(), {query, server: serverName, servers})
      } catch (error) {
        if (!(error instanceof UnknownServerError)) throw error
        return {isError: true, content: [text(error.message)]}
      }
      const content = [text(JSON.stringify(listing))]
      const saved = serverName === undefined ? savedProgramsLine(runtime) : undefined
      if (saved) content.push(text(saved))
      const down = registry.unavailableServers()
      const starting = down.filter((s) => s.starting)
      if (starting.length > 0) content.push(text(startingServersLine(starting)))
      const failed = down.filter((s) => !s.starting)
      if (failed.length > 0) {
        const reasons = failed.map((s) => `${s.name}: ${s.reason}`).join('; ')
        content.push(text(`UNAVAILABLE SERVERS (their tools are not listed; reconnecting): ${reasons}`))
      }
      markStep(steps, 'result built')
      return {content}
    },
  )

  server.registerTool(
    'inspect_tool',
    {
      description: INSPECT_TOOL_DESCRIPTION,
      inputSchema: z.object({
        tool_name: z.string().optional().describe('A name from list_callable_tools, e.g. mcp__fin__query.'),
        tool_names: z
          .union([z.array(z.string()), z.string()])
          .optional()
          .describe('Several names, or a glob such as mcp__fin__*, inspected in one call.'),
        brief: z.boolean().optional().describe('Only the signature and the first line of the description.'),
      }),
    },
    async (request) => {
      await registry.waitForInitialConnections(INITIAL_CONNECT_WAIT_MS)
      try {
        return {content: [text(JSON.stringify(inspectTools(registry, request), null, 2))]}
      } catch (error) {
        if (!(error instanceof InspectError)) throw error
        return {isError: true, content: [text(error.message)]}
      }
    },
  )

  const runProgram = registerExecuteProgram(server, runtime, logger, upstream)
  registerSavedProgramTools(server, runtime, logger, runProgram)

  return server
}

/** `STARTING SERVERS (...): fin: starting for 4s, calls wait up to 30s` (SPEC §5). */
export function startingServersLine(servers: readonly UnavailableServer[]): string {
  const entries = servers.map(({name, starting}) => `${name}: ${startingText(starting!)}`)
  return `STARTING SERVERS (their tools are listed once they connect; a call to one waits for it): ${entries.join('; ')}`
}
