// The floor under every gateway in Node: the MCP SDK (v2) over stdio, with no interpreter and no
// sandbox. Its "program" is a JSON plan run in-process; it reaches the downstream servers named
// in argv[2] (a JSON array of {name, command, args}) through SDK v2 clients, as a gateway does.
// Tools:
//   run_plan {plan}   {"kind":"trivial"} answers "1"; {"kind":"calls"|"fanout","server","tool","args","n"}
//                     makes n calls (fan-out: 8 at a time) and answers "<n> answered";
//                     {"kind":"big",...} answers the rows' count and the sum of their amounts
//   noop {}           answers at once: the MCP round trip alone
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {McpServer} from '@modelcontextprotocol/server'
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'
import * as z from 'zod/v4'

interface Launch {
  name: string
  command: string
  args: string[]
}

interface Plan {
  kind: 'big' | 'calls' | 'fanout' | 'trivial'
  server?: string
  tool?: string
  args?: Record<string, unknown>
  n?: number
}

/** Room for the 16 MiB result (the SDK's stdio client stops at 10 MB unless told otherwise). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024
/** As ptc-mcp's shipped `max_concurrent_calls`. */
const FAN_OUT = 8

const launches = JSON.parse(process.argv[2] ?? '[]') as Launch[]
const clients = new Map<string, Client>()
// All at once, before serving: a gateway that lists its servers' tools must connect first.
await Promise.all(
  launches.map(async ({name, command, args}) => {
    const client = new Client({name: 'sdk-floor', version: '1.0.0'})
    await client.connect(
      new StdioClientTransport({command, args, stderr: 'ignore', maxBufferSize: MAX_MESSAGE_BYTES}),
    )
    clients.set(name, client)
  }),
)

type CallResult = {content: Array<{type: string; text?: string}>}

async function call(plan: Plan): Promise<CallResult> {
  const client = clients.get(plan.server ?? '')
  if (!client) throw new Error(`no server ${plan.server}`)
  return (await client.callTool({name: plan.tool!, arguments: plan.args})) as CallResult
}

const hasContent = (result: CallResult): boolean => result.content.length > 0

async function run(plan: Plan): Promise<string> {
  switch (plan.kind) {
    case 'trivial': {
      return '1'
    }
    case 'calls': {
      let answered = 0
      for (let i = 0; i < plan.n!; i++) if (hasContent(await call(plan))) answered++
      return `${answered} answered`
    }
    case 'fanout': {
      let next = 0
      let answered = 0
      const worker = async (): Promise<void> => {
        while (next++ < plan.n!) if (hasContent(await call(plan))) answered++
      }
      await Promise.all(Array.from({length: FAN_OUT}, worker))
      return `${answered} answered`
    }
    case 'big': {
      const rows = JSON.parse((await call(plan)).content[0]?.text ?? '[]') as Array<{amount: number}>
      return `${rows.length} ${Math.round(rows.reduce((sum, row) => sum + row.amount, 0) * 100) / 100}`
    }
  }
}

const server = new McpServer({name: 'sdk-floor', version: '1.0.0'})
const text = (value: string) => ({content: [{type: 'text' as const, text: value}]})
server.registerTool(
  'run_plan',
  {description: 'Runs a JSON plan.', inputSchema: z.object({plan: z.string()})},
  async ({plan}) => text(await run(JSON.parse(plan) as Plan)),
)
server.registerTool('noop', {description: 'Answers at once.'}, async () => text('ok'))
await server.connect(new StdioServerTransport())
