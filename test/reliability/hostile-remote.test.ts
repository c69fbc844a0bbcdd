// @tier integration
/**
 * A hostile remote server against ptc-mcp's memory (SPEC §15): every answer it sends is read to a
 * bound, whatever its size. Error pages, OAuth discovery documents and tool results that go on
 * without end leave `list`, `auth` and `serve` under 300 MB, and `serve` answers other calls
 * meanwhile. The built CLI runs as a real process; its RSS is read from /proc.
 */
import type {AddressInfo} from 'node:net'

import {readFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {startRawServe} from '../helpers/json-rpc.js'
import {execute} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup, spawnCli} from '../helpers/serve.js'

/** What the CLI may hold at any time while the hostile server floods it. */
const MAX_RSS = 300 * 1024 * 1024
const CHUNK = Buffer.alloc(256 * 1024, 0x78)

/** Writes CHUNKs for as long as the peer reads them: an endless body. */
function flood(response: ServerResponse, prefix: string): void {
  response.write(prefix)
  const more = (): void => {
    while (!response.destroyed && response.write(CHUNK));
    if (!response.destroyed) response.once('drain', more)
  }
  response.once('close', () => response.removeAllListeners('drain'))
  more()
}

async function body(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += String(chunk)
  return text
}

/**
 * /error: every request is an HTTP 500 with an endless page. /oauth: a 401 naming protected-resource
 * metadata that is an endless JSON document, as is every /.well-known/ document. /tools: a
 * streamable HTTP MCP server (JSON answers) whose tool `flood` answers with an endless JSON body
 * and `flood_error` with an endless 500.
 */
async function hostileServer(): Promise<{server: Server; base: string}> {
  const server = createServer((request, response) => {
    const answerRequest = async (): Promise<void> => {
      const url = request.url ?? ''
      const text = request.method === 'POST' ? await body(request) : ''
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      if (url.startsWith('/error')) {
        response.writeHead(500, {'content-type': 'text/html'})
        flood(response, '<html>')
        return
      }
      if (url.startsWith('/.well-known/') || url.startsWith('/meta')) {
        response.writeHead(200, {'content-type': 'application/json'})
        flood(response, `{"resource":"${base}/oauth","authorization_servers":["${base}"],"x":"`)
        return
      }
      if (url.startsWith('/oauth')) {
        response.writeHead(401, {'www-authenticate': `Bearer resource_metadata="${base}/meta"`})
        response.end()
        return
      }
      if (!url.startsWith('/tools') || request.method !== 'POST') {
        response.writeHead(405)
        response.end()
        return
      }
      const message = JSON.parse(text) as {id?: number; method: string; params?: {name?: string}}
      if (message.id === undefined) {
        response.writeHead(202)
        response.end()
        return
      }
      const answer = (result: unknown): void => {
        response.writeHead(200, {'content-type': 'application/json'})
        response.end(JSON.stringify({jsonrpc: '2.0', id: message.id, result}))
      }
      if (message.method === 'initialize')
        return answer({
          protocolVersion: '2025-06-18',
          capabilities: {tools: {}},
          serverInfo: {name: 'hostile', version: '1'},
        })
      if (message.method === 'tools/list')
        return answer({
          tools: ['flood', 'flood_error'].map((name) => ({name, inputSchema: {type: 'object'}})),
        })
      if (message.method === 'tools/call' && message.params?.name === 'flood_error') {
        response.writeHead(500, {'content-type': 'text/plain'})
        flood(response, 'Internal error: ')
        return
      }
      if (message.method === 'tools/call') {
        response.writeHead(200, {'content-type': 'application/json'})
        return flood(
          response,
          `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`,
        )
      }
      answer({})
    }
    answerRequest().catch(() => response.destroy())
  })
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  return {server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
}

/** Samples a process's RSS every 50 ms until `stop()`; returns the highest seen. */
function watchRss(pid: number): {stop(): number} {
  let peak = 0
  const look = (): void => {
    try {
      const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
      peak = Math.max(peak, kb * 1024)
      // A runaway is stopped here rather than by the OOM killer; the test then fails on its peak.
      if (peak > 2 * MAX_RSS) process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  const timer = setInterval(look, 50)
  return {
    stop() {
      clearInterval(timer)
      return peak
    },
  }
}

describe.runIf(process.platform === 'linux')('a remote server sending endless bodies', () => {
  let hostile: {server: Server; base: string}
  let setup: ServeSetup

  beforeAll(async () => {
    hostile = await hostileServer()
    setup = prepareServe({
      servers: [
        {name: 'error-page', transport: 'http', url: `${hostile.base}/error`},
        {name: 'endless-oauth', transport: 'http', url: `${hostile.base}/oauth`, oauth: {}},
        {name: 'tools', transport: 'http', url: `${hostile.base}/tools`},
        {name: 'fx', ...fixtureCommand(['--name', 'fx'])},
      ],
      execution: {timeout_seconds: 60, warm_pool: 0},
    })
  })
  afterAll(async () => {
    hostile.server.closeAllConnections()
    await new Promise((resolve) => {
      hostile.server.close(resolve)
    })
    setup.cleanup()
  })

  test('list: an endless HTTP 500 page is read to a few KiB; the server is reported unavailable', async () => {
    const run = spawnCli(['list', '--config', setup.configPath, '--server', 'error-page', '--json'], {
      env: setup.env,
      timeoutMs: 60_000,
    })
    const rss = watchRss(run.pid)
    const done = await run.done
    const peak = rss.stop()
    if (process.env.PTC_REPORT_RSS) console.error(`peak RSS ${Math.round(peak / 2 ** 20)} MiB`)
    expect(peak, `peak RSS ${peak}`).toBeLessThan(MAX_RSS)
    expect(done.stdout, done.stderr).toContain('HTTP 500')
  })

  test('auth: endless discovery JSON fails with the bound named, not with the memory', async () => {
    const run = spawnCli(['auth', 'endless-oauth', '--config', setup.configPath, '--no-browser'], {
      env: setup.env,
      timeoutMs: 60_000,
    })
    const rss = watchRss(run.pid)
    const done = await run.done
    const peak = rss.stop()
    if (process.env.PTC_REPORT_RSS) console.error(`peak RSS ${Math.round(peak / 2 ** 20)} MiB`)
    expect(peak, `peak RSS ${peak}`).toBeLessThan(MAX_RSS)
    expect(done.code).not.toBe(0)
    expect(done.stderr, done.stderr).toMatch(/is over 1048576 bytes/)
    expect(done.stderr.length).toBeLessThan(2000)
  })

  test('serve: endless tool answers fail their calls alone; another call is answered meanwhile', async () => {
    const serve = await startRawServe(setup)
    const rss = watchRss(serve.child.pid!)
    try {
      const flooding = execute(
        serve,
        `
for name, tool in (("flood", mcp__tools__flood), ("flood_error", mcp__tools__flood_error)):
    try:
        await tool()
        print(name, "answered")
    except ToolError as e:
        print(name, e.kind, str(e)[:200])
`,
        120_000,
      )
      const other = await execute(serve, 'print(await mcp__fx__echo(text="still here"))', 60_000)
      expect(other.text).toContain('still here')
      const flooded = await flooding
      expect(flooded.text).toMatch(/^flood too_large/m)
      expect(flooded.text).toMatch(/^flood_error \w+ .*500/m)
    } finally {
      await serve.kill()
    }
    const peak = rss.stop()
    if (process.env.PTC_REPORT_RSS) console.error(`peak RSS ${Math.round(peak / 2 ** 20)} MiB`)
    expect(peak, `peak RSS ${peak}`).toBeLessThan(MAX_RSS)
  }, 180_000)
})
