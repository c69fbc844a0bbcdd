import {McpServer} from '@modelcontextprotocol/server'
import {pathToFileURL} from 'node:url'
import {z} from 'zod'

import type {ProgramEngine, RunOutcome} from '../execution/engine.js'
import type {Logger} from '../log.js'
import type {Runtime} from '../runtime.js'
import type {UpstreamBridge} from './upstream-bridge.js'

import {InspectError, inspectTools} from '../downstream/inspect.js'
import {callableTools, UnknownServerError} from '../downstream/tool-search.js'
import {startFailureOutcome, structuredOutcome} from '../execution/outcome.js'
import {elicitationPrompter} from './approval-prompter.js'
import {
  executeProgramDescription,
  INSPECT_TOOL_DESCRIPTION,
  LIST_CALLABLE_TOOLS_DESCRIPTION,
} from './descriptions.js'
import {startProgress} from './progress.js'

/** How long list_callable_tools and execute_program wait for servers still on their first attempt. */
export const INITIAL_CONNECT_WAIT_MS = 5000

const toolCallSchema = z.object({
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  ok: z.boolean(),
  ms: z.number(),
  error: z.string().optional(),
  approval: z.enum(['approved', 'denied']).optional(),
})

const executeOutputSchema = z.object({
  ok: z.boolean().describe('True when the program ran to the end without an uncaught exception.'),
  output: z.string().describe('What the program printed (capped).'),
  result: z.unknown().describe('The last emit() value, or null.'),
  error: z
    .string()
    .nullable()
    .describe('The error when the run failed (trimmed traceback, timeout, sandbox).'),
  tool_calls: z
    .array(toolCallSchema)
    .describe('The first 50 tool calls, in order of completion; args cut to 200 characters of JSON.'),
  more_tool_calls: z
    .array(z.object({tool: z.string(), calls: z.number(), failed: z.number()}))
    .optional()
    .describe('The calls after the first 50, counted per tool.'),
  sandbox: z.string().describe('The sandbox layer in force for this run.'),
})

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
    async ({query, server: serverName}) => {
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
      const down = registry.unavailableServers()
      if (down.length > 0) {
        const reasons = down.map((s) => `${s.name}: ${s.reason}`).join('; ')
        content.push(text(`UNAVAILABLE SERVERS (their tools are not listed; reconnecting): ${reasons}`))
      }
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

  server.registerTool(
    'execute_program',
    {
      description: executeProgramDescription(runtime.config.execution),
      inputSchema: z.object({code: z.string().describe('The Python program. Top-level await works.')}),
      outputSchema: executeOutputSchema,
    },
    async ({code}, ctx) => {
      const progress = startProgress(ctx, logger)
      try {
        await registry.waitForInitialConnections(INITIAL_CONNECT_WAIT_MS)
        let engine: ProgramEngine
        try {
          engine = await runtime.engine()
        } catch (error) {
          return toCallResult(
            startFailureOutcome(error, runtime.config.execution, runtime.config.execution.sandbox),
          )
        }
        const outcome = await engine.run(code, {
          signal: ctx.mcpReq.signal,
          onToolCallDone: (completed) => progress.toolCallsCompleted(completed),
          onQueue: (ahead) => progress.queued(ahead),
          prompter: elicitationPrompter(server, ctx),
        })
        return toCallResult(outcome)
      } finally {
        progress.stop()
      }
    },
  )

  return server
}

function toCallResult(outcome: RunOutcome) {
  // Rule: images the program passed to show() come after the text, then the kept files as
  // resource links (SPEC §14).
  const images = outcome.images.map((image) => ({
    type: 'image' as const,
    data: image.data,
    mimeType: image.mimeType,
  }))
  const links = outcome.files.map((file) => ({
    type: 'resource_link' as const,
    uri: pathToFileURL(file.path).href,
    name: file.name,
    size: file.bytes,
  }))
  return {
    content: [text(outcome.text), ...images, ...links],
    structuredContent: structuredOutcome(outcome),
    isError: !outcome.ok,
  }
}
