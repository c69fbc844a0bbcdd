// @tier integration
import {runCommand} from '@oclif/test'
// What doctor (and so list_callable_tools and every ToolError) says of a remote server that cannot be
// used, decided from what the URL really answered: a web page where MCP was expected, a URL that is no
// SSE stream, a server failing behind its proxy, a server failing with its own message.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import type {DoctorResult} from '../../src/commands/doctor.js'

import {ROOT, withExitCode} from '../helpers/command-exit.js'

/** Python's `http.server` answer to a POST (what `python3 -m http.server` serves). */
const PYTHON_501 = `<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: 501</p>
        <p>Message: Unsupported method ('POST').</p>
        <p>Error code explanation: 501 - Server does not support this operation.</p>
    </body>
</html>
`

let dir: string
let site: Server

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-remote-hints-'))
  site = createServer((req, res) => {
    const html = {'content-type': 'text/html;charset=utf-8'}
    if (req.url === '/static/' && req.method === 'POST')
      res.writeHead(501, "Unsupported method ('POST')", html).end(PYTHON_501)
    else if (req.url === '/static/')
      res.writeHead(200, html).end('<html><body>Directory listing</body></html>')
    else if (req.url === '/gateway/')
      res
        .writeHead(502, html)
        .end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>')
    else res.writeHead(500, {'content-type': 'application/json'}).end('{"error": "database is locked"}')
  })
  await new Promise<void>((resolve) => {
    site.listen(0, '127.0.0.1', resolve)
  })
})

afterAll(() => {
  site.close()
  rmSync(dir, {force: true, recursive: true})
})

describe('hints for remote servers, from the status, the content type and the body', () => {
  it('names a web page, a URL that is no SSE stream and a failing server for what they are', async () => {
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
    const configPath = join(dir, 'remote.yaml')
    writeFileSync(
      configPath,
      stringify({
        servers: [
          {name: 'static', transport: 'http', url: `${base}/static/`},
          {name: 'listing', transport: 'sse', url: `${base}/static/`},
          {name: 'proxied', transport: 'http', url: `${base}/gateway/`},
          {name: 'failing', transport: 'http', url: `${base}/mcp`},
        ],
        execution: {sandbox: 'none'},
      }),
    )
    const run = withExitCode(await runCommand<DoctorResult>(['doctor', '--config', configPath], {root: ROOT}))
    expect(run.exitCode).toBe(1)
    const byId = Object.fromEntries(run.result!.checks.map((c) => [c.id, c]))
    expect(byId['server:static']).toMatchObject({
      status: 'fail',
      detail: "http not an MCP endpoint: POST got HTTP 501 Unsupported method ('POST') and a web page",
      fix: 'no MCP endpoint at /static/: check the url (the MCP path is often /mcp for http, /sse for sse)',
    })
    expect(byId['server:listing']).toMatchObject({
      status: 'fail',
      detail: 'sse not an SSE stream: GET answered text/html, not text/event-stream',
      fix: '/static/ is not an SSE endpoint: use its SSE path (often /sse), or transport: http if it is a streamable HTTP endpoint (often /mcp)',
    })
    expect(byId['server:proxied']).toMatchObject({
      status: 'fail',
      detail: 'http HTTP 502 Bad Gateway: nginx',
      fix: 'the server failed on its side: check its own logs, or try again later',
    })
    expect(byId['server:failing']).toMatchObject({
      status: 'fail',
      detail: 'http HTTP 500 Internal Server Error: {"error": "database is locked"}',
      fix: 'the server failed on its side: check its own logs, or try again later',
    })
    // The page's words appear nowhere, let alone twice.
    expect(run.stdout).not.toContain('Error response')
  })
})
