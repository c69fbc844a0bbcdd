import {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'

import type {Runtime} from '../runtime.js'
import type {Logger} from '../shared/log.js'
import type {Caller} from './caller.js'
import type {ServerCatalogue} from './server-catalogue.js'
import type {UpstreamBridge} from './upstream-bridge.js'

import {
  callableTools,
  InspectError,
  inspectTools,
  startingText,
  type UnavailableServer,
  UnknownServerError,
} from '../downstream/index.js'
import {INITIAL_CONNECT_WAIT_MS} from '../shared/limits.js'
import {markStep, stepsOf} from '../shared/steps.js'
import {briefText} from './brief-text.js'
import {inspectToolDescription, listCallableToolsDescription} from './descriptions.js'
import {registerExecuteProgram} from './execute-program.js'
import {registerSavedProgramTools, savedProgramsLine} from './saved-program-tools.js'

const text = (value: string) => ({type: 'text' as const, text: value})
/** Servers whose config entries cannot be used: unlike unavailable ones, nothing retries them. */
export const UNUSABLE_ENTRIES_PREFIX =
  'CONFIG ERRORS (these servers are not started until the config file is fixed and ptc-mcp restarted): '

export function createMcpServer(
  runtime: Runtime,
  logger: Logger,
  version: string,
  {
    upstream,
    catalogue,
    caller,
  }: {catalogue?: ServerCatalogue; caller?: Caller; upstream?: UpstreamBridge} = {},
): McpServer {
  // The catalogue of servers, from the last session's while they connect (SPEC §5).
  const instructions = catalogue?.instructions()
  const server = new McpServer({name: 'ptc-mcp', version}, {capabilities: {tools: {}}, instructions})
  if (upstream) server.server.oninitialized = () => upstream.attach(server)
  const {registry} = runtime
  const servers = {
    counts: () => catalogue?.serversWithCounts() ?? 'configured',
    names: () => catalogue?.serverNames() ?? 'configured',
  }

  const listTool = server.registerTool(
    'list_callable_tools',
    {
      description: listCallableToolsDescription(servers.counts()),
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
      const failed = down.filter((s) => !s.starting && !s.unusable)
      if (failed.length > 0) {
        const reasons = failed.map((s) => `${s.name}: ${s.reason}`).join('; ')
        content.push(text(`UNAVAILABLE SERVERS (their tools are not listed; reconnecting): ${reasons}`))
      }
      const unusable = down.filter((s) => s.unusable)
      if (unusable.length > 0) {
        const reasons = unusable.map((s) => `${s.name}: ${s.reason}`).join('; ')
        content.push(text(`${UNUSABLE_ENTRIES_PREFIX}${reasons}`))
      }
      markStep(steps, 'result built')
      return {content}
    },
  )

  server.registerTool(
    'inspect_tool',
    {
      description: inspectToolDescription(servers.names()),
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
        const inspected = inspectTools(registry, request)
        // Brief is brief (SPEC §5): a line a tool.
        const shown =
          request.brief === true && Array.isArray(inspected)
            ? briefText(inspected)
            : JSON.stringify(inspected, null, 2)
        return {content: [text(shown)]}
      } catch (error) {
        if (!(error instanceof InspectError)) throw error
        return {isError: true, content: [text(error.message)]}
      }
    },
  )

  const runProgram = registerExecuteProgram(server, runtime, logger, {upstream, caller})
  const programsListed = registerSavedProgramTools(server, runtime, logger, runProgram)

  if (catalogue) {
    // A server's tools changed: the client lists ours again and reads the counts anew; not before
    // the saved programs are listed, so that the first list a client takes again holds them.
    const stop = catalogue.onChange(() => {
      programsListed
        .then(() => listTool.update({description: listCallableToolsDescription(servers.counts())}))
        .catch((error: unknown) => logger.debug(`list_callable_tools not updated: ${String(error)}`))
    })
    const {onclose} = server.server
    server.server.onclose = () => {
      stop()
      onclose?.()
    }
  }
  return server
}

/** `STARTING SERVERS (...): fin: starting for 4s, calls wait up to 30s` (SPEC §5). */
export function startingServersLine(servers: readonly UnavailableServer[]): string {
  const entries = servers.map(({name, starting}) => `${name}: ${startingText(starting!)}`)
  return `STARTING SERVERS (their tools are listed once they connect; a call to one waits for it): ${entries.join('; ')}`
}
