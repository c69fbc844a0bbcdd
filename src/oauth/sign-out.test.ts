// @tier unit
import {mkdtemp, rm} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import {type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {serverSchema} from '../config/schema.js'
import {signOut} from './sign-out.js'
import {TokenStore} from './store.js'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step()
})

/** A revocation endpoint that refuses, as FastMCP's does for a public client, and says why (with a long tail). */
async function refusingEndpoint(): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(401, {'content-type': 'application/json'})
    res.end(
      JSON.stringify({
        error: 'invalid_client',
        error_description: 'client authentication required',
        pad: 'x'.repeat(100_000),
      }),
    )
  })
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  cleanup.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve())
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/revoke`
}

describe('signOut', () => {
  it("prints the server's reason when revocation fails, and still deletes the local tokens", async () => {
    const endpoint = await refusingEndpoint()
    const dir = await mkdtemp(join(tmpdir(), 'ptc-sign-out-'))
    cleanup.push(() => rm(dir, {recursive: true, force: true}))
    const store = new TokenStore({dir: join(dir, 'oauth')})
    const url = 'https://issues.example/mcp'
    await store.write({
      version: 1,
      server_url: url,
      client: {client_id: 'c1'},
      tokens: {access_token: 'a', refresh_token: 'r', token_type: 'Bearer'},
      discovery: {
        authorizationServerUrl: 'https://as.example',
        authorizationServerMetadata: {
          issuer: 'https://as.example',
          authorization_endpoint: 'https://as.example/authorize',
          token_endpoint: 'https://as.example/token',
          response_types_supported: ['code'],
          revocation_endpoint: endpoint,
        } as never,
      },
    })
    const server = serverSchema.parse({name: 'issues', transport: 'http', url}) as Extract<
      ReturnType<typeof serverSchema.parse>,
      {url: string}
    >
    const result = await signOut(server, store)
    expect(result).toEqual({
      server: 'issues',
      revocation: 'failed',
      detail: 'the revocation endpoint answered HTTP 401: invalid_client: client authentication required',
      deleted: true,
    })
  })
})
