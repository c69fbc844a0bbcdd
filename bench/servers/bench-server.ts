// The bench's own downstream MCP server, run through tsx (`node --import tsx`); the loader only
// costs start-up, so per-call numbers still measure the gateway and the SDK. Tools:
//   echo {text}        the cheap call: one text item, the argument as given
//   sleep {ms}         waits, then answers (fan-out)
//   big {bytes}        one text item: a JSON array of rows, exactly `bytes` bytes (built once per size)
import {McpServer} from '@modelcontextprotocol/server'
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'
import {setTimeout as sleep} from 'node:timers/promises'
import * as z from 'zod/v4'

const server = new McpServer({name: 'bench', version: '1.0.0'})
const text = (value: string) => ({content: [{type: 'text' as const, text: value}]})

server.registerTool(
  'echo',
  {description: 'Returns the text as given.', inputSchema: z.object({text: z.string()})},
  async ({text: value}) => text(value),
)

server.registerTool(
  'sleep',
  {
    description: 'Waits `ms` milliseconds, then answers.',
    inputSchema: z.object({ms: z.number().int().min(0)}),
  },
  async ({ms}) => {
    await sleep(ms)
    return text(`slept ${ms}`)
  },
)

const bigCache = new Map<number, string>()
server.registerTool(
  'big',
  {
    description: 'A JSON array of rows of exactly `bytes` bytes of text.',
    inputSchema: z.object({bytes: z.number().int().min(64)}),
  },
  async ({bytes}) => {
    let value = bigCache.get(bytes)
    if (value === undefined) {
      value = jsonRows(bytes)
      bigCache.set(bytes, value)
    }
    return text(value)
  },
)

/** `[{"id":0,"account":"sales","amount":12.5,"memo":"..."},...]` padded to exactly `bytes` bytes. */
function jsonRows(bytes: number): string {
  const rows: string[] = []
  let size = 2 // [ and ]
  for (let id = 0; ; id++) {
    const row = JSON.stringify({
      id,
      account: ['sales', 'refunds', 'cogs', 'payroll', 'rent'][id % 5],
      amount: ((id * 7919) % 100_000) / 100,
      memo: 'quarterly ledger line',
    })
    const added = row.length + (rows.length > 0 ? 1 : 0)
    if (size + added + 40 > bytes) break
    rows.push(row)
    size += added
  }
  // The last row's memo takes up the rest, so the size is exact.
  const fill = bytes - size - (rows.length > 0 ? 1 : 0)
  const last = JSON.stringify({id: rows.length, account: 'rent', amount: 0, memo: ''})
  rows.push(last.replace('"memo":""', `"memo":"${'x'.repeat(fill - last.length)}"`))
  return `[${rows.join(',')}]`
}

await server.connect(new StdioServerTransport())
