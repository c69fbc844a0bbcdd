// A downstream MCP server over streamable HTTP, in the test's own process (both protocol eras), that
// records the trace context each tools/call arrived with: the `traceparent` header of its HTTP
// request and the `traceparent` in its `_meta` (SPEC §18: passed on to HTTP servers).
import {createMcpHandler, McpServer} from '@modelcontextprotocol/server'
import {createServer, type Server} from 'node:http'
import * as z from 'zod/v4'

import {sendWebResponse, toWebRequest} from '../../src/gateway/node-http.js'

export interface ReceivedCall {
  tool: string
  /** The `traceparent` header of the POST that carried it. */
  header: string | undefined
  /** `_meta.traceparent` of the tools/call. */
  meta: unknown
}

export class TracedMcpServer {
  readonly calls: ReceivedCall[] = []
  private server: Server | undefined
  /** http://127.0.0.1:<port>/mcp once started. */
  url = ''

  async start(): Promise<string> {
    const handler = createMcpHandler(
      () => {
        const server = new McpServer({name: 'traced', version: '1.0.0'})
        server.registerTool(
          'echo',
          {description: 'Returns its text.', inputSchema: z.object({text: z.string()})},
          async ({text}, ctx) => {
            // The header rides in as the request's auth info: it is this request's, whatever else runs.
            const header = ctx.http?.authInfo?.token || undefined
            this.calls.push({tool: 'echo', header, meta: ctx.mcpReq._meta?.traceparent})
            return {content: [{type: 'text', text}]}
          },
        )
        return server
      },
      {legacy: 'stateless'},
    )
    const server = createServer((req, res) => {
      toWebRequest(req, res, 1_048_576)
        .then(async (request) => {
          if (request === 'too large') throw new Error('too large')
          const authInfo = {token: request.headers.get('traceparent') ?? '', clientId: 'test', scopes: []}
          await sendWebResponse(res, await handler.fetch(request, {authInfo}))
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(500)
          res.end()
        })
    })
    await new Promise<void>((done) => {
      server.listen(0, '127.0.0.1', done)
    })
    this.server = server
    this.url = `http://127.0.0.1:${(server.address() as {port: number}).port}/mcp`
    return this.url
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((done) => {
      if (this.server) this.server.close(() => done())
      else done()
    })
  }
}
