// @tier integration
// One `serve --http` replica's life (SPEC §18): refusing to listen beyond loopback without
// authentication, and SIGTERM: no more work taken, the running program answered, a clean exit.
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, describe, expect, it} from 'vitest'

import {spawnCli} from '../helpers/serve.js'
import {Cluster} from './cluster.js'

const cluster = new Cluster()

afterAll(async () => {
  await cluster.stopAll()
})

describe('serve --http', () => {
  it('refuses to listen beyond loopback without gateway.auth, saying what to add', async () => {
    const config = cluster.config({auth: {bearer: []}})
    const args = ['serve', '--http', '--host', '0.0.0.0', '--port', '0', '--config', config]
    const result = await spawnCli(args, {timeoutMs: 30_000}).done
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('listening on 0.0.0.0 (beyond loopback) needs authentication')
    expect(result.stderr).toContain('gateway.auth.bearer')
  })

  it('on SIGTERM takes no more work, answers the running program, and exits 0', async () => {
    const config = cluster.config({auth: {bearer: []}, shutdown_seconds: 20})
    const {url, process: replica} = await cluster.replica(config)
    const client = new Client({name: 'lifecycle', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))
    try {
      const running = client.callTool({
        name: 'execute_program',
        arguments: {code: 'import asyncio\nprint("begun")\nawait asyncio.sleep(3)\nprint("finished")'},
      })
      // The program is running once /metrics says so.
      for (let i = 0; i < 100; i++) {
        if (/^ptc_programs_running 1$/m.test(await (await fetch(`${url}/metrics`)).text())) break
        await new Promise((done) => {
          setTimeout(done, 100)
        })
      }
      const exited = new Promise<number | null>((done) => {
        replica.proc.once('exit', (code) => done(code))
      })
      replica.proc.kill('SIGTERM')
      await new Promise((done) => {
        setTimeout(done, 300)
      })
      const late = await fetch(`${url}/mcp`, {method: 'POST', body: '{}'}).then(
        (response) => response.status,
        () => 'refused',
      )
      expect([503, 'refused']).toContain(late)
      const result = (await running) as {isError?: boolean; content: Array<{text: string}>}
      expect(result.isError, result.content[0]?.text).toBeFalsy()
      expect(result.content[0]!.text).toContain('finished')
      expect(await exited).toBe(0)
    } finally {
      await client.close().catch(() => {})
    }
  })
})
