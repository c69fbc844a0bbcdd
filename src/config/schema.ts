import {z} from 'zod'

/** Ceiling for one tool result: what the child channel carries in one message, with room for framing. */
export const MAX_TOOL_RESULT_CEILING = 64 * 1024 * 1024

const positiveInt = (description: string, max?: number) => {
  const base = z.number().int().positive()
  return (max === undefined ? base : base.max(max)).describe(description)
}

const stringMap = (description: string) => z.record(z.string(), z.string()).describe(description)

const serverName = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, "_" and "-"')
  .describe('Unique name; tools are exposed as mcp__<name>__<tool> (non [A-Za-z0-9_] characters become _).')

const stdioServer = z
  .strictObject({
    name: serverName,
    transport: z.literal('stdio').default('stdio').describe('How to reach the server: stdio (default), http or sse.'),
    command: z.string().min(1).describe('Executable to launch (stdio). ${VAR} and ${VAR:-default} are expanded.'),
    args: z.array(z.string()).default([]).describe('Arguments for the command. ${VAR} expanded.'),
    env: stringMap(
      'Environment for the server, on top of a minimal safe one (PATH, HOME, LANG...). ${VAR} expanded.',
    ).default({}),
    cwd: z.string().optional().describe('Working directory for the command (default: ptc-mcp\'s own).'),
  })
  .describe('A server launched as a child process and spoken to over stdin/stdout.')

const remoteServer = (transport: 'http' | 'sse', description: string) =>
  z
    .strictObject({
      name: serverName,
      transport: z.literal(transport).describe('How to reach the server: stdio (default), http or sse.'),
      url: z.url().describe('Endpoint URL. ${VAR} expanded.'),
      headers: stringMap('HTTP headers sent with every request, e.g. Authorization. ${VAR} expanded.').default({}),
    })
    .describe(description)

export const serverSchema = z.discriminatedUnion('transport', [
  stdioServer,
  remoteServer('http', 'A server reached over streamable HTTP.'),
  remoteServer('sse', 'A server reached over the legacy HTTP+SSE transport.'),
])

const toolPatterns = (description: string) => z.array(z.string().min(1)).describe(description)

export const toolsSchema = z
  .strictObject({
    allow: toolPatterns('Only these namespaced tools (names or globs, e.g. mcp__fin__*) are listed and callable.').optional(),
    block: toolPatterns('These namespaced tools (names or globs) are hidden and not callable.').optional(),
  })
  .refine((t) => !(t.allow && t.block), {message: 'use either allow or block, not both'})
  .describe('Which downstream tools programs may see and call. Omit both lists for everything.')

export const SANDBOX_BACKENDS = ['auto', 'linux', 'seatbelt', 'none'] as const

export const executionSchema = z
  .strictObject({
    timeout_seconds: positiveInt('Wall-clock limit for a whole program, CPU-bound code included.').default(120),
    max_output_bytes: positiveInt('Cap on printed output (UTF-8 bytes) and on the emit() value.').default(65_536),
    sandbox: z
      .enum(SANDBOX_BACKENDS)
      .default('auto')
      .describe('auto: seatbelt on macOS, linux on Linux. none: no OS isolation (explicit opt-in).'),
    max_tool_calls: positiveInt('Tool calls allowed per program; the helpers are not counted.').default(100),
    max_concurrent_calls: positiveInt('Tool calls in flight at once per program.').default(8),
    tool_call_timeout_seconds: positiveInt('Limit for one tool call.').default(60),
    trace: z.enum(['summary', 'off']).default('summary').describe('Append a summary of tool calls to the output.'),
    max_tool_result_bytes: positiveInt(
      `Largest tool result passed to a program (at most ${MAX_TOOL_RESULT_CEILING}).`,
      MAX_TOOL_RESULT_CEILING,
    ).default(16_777_216),
    python: z.string().min(1).default('python3').describe('Python interpreter (>= 3.10) for programs.'),
    warm_pool: z
      .number()
      .int()
      .min(0)
      .default(1)
      .describe('Sandboxed interpreters started ahead of time, each used once (0 = off).'),
  })
  .describe('How programs run.')

export const configSchema = z
  .strictObject({
    servers: z.array(serverSchema).default([]).describe('Downstream MCP servers whose tools programs may call.'),
    tools: toolsSchema.default({}),
    execution: executionSchema.default(executionSchema.parse({})),
  })
  .describe('ptc-mcp configuration')

export type Config = z.infer<typeof configSchema>
export type ServerConfig = z.infer<typeof serverSchema>
export type StdioServerConfig = Extract<ServerConfig, {command: string}>
export type RemoteServerConfig = Exclude<ServerConfig, StdioServerConfig>
export type ExecutionConfig = z.infer<typeof executionSchema>
export type ToolsConfig = z.infer<typeof toolsSchema>
