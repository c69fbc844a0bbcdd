// @tier integration
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool,
} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
// The shared fixture server behaves the same over stdio, streamable HTTP and SSE, as a real v2
// client sees it. Every other integration test relies on these behaviours.
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {fixtureCommand, type HttpFixture, startHttpFixture} from '../fixtures/start-fixture.js'

type TransportKind = 'stdio' | 'http' | 'sse'

interface Connected {
  client: Client
  /** Resolves with the refreshed tool list on the first notifications/tools/list_changed. */
  toolsChanged: Promise<Tool[]>
}

/** Resolves with the promise's value, or rejects naming what was awaited once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

describe.each<TransportKind>(['stdio', 'http', 'sse'])('fixture server over %s', (kind) => {
  let workDir: string
  let counterFile: string
  let fixture: HttpFixture | undefined
  let connected: Connected | undefined

  beforeEach(() => {
    workDir = mkdtempSync(join(tmpdir(), 'ptc-fixture-'))
    counterFile = join(workDir, 'calls.txt')
  })

  afterEach(async () => {
    await connected?.client.close()
    await fixture?.stop()
    connected = undefined
    fixture = undefined
    rmSync(workDir, {recursive: true, force: true})
  })

  async function connect(args: string[] = []): Promise<Connected> {
    let onToolsChanged!: (tools: Tool[]) => void
    const toolsChanged = new Promise<Tool[]>((resolve) => {
      onToolsChanged = resolve
    })
    const client = new Client(
      {name: 'fixture-test', version: '1.0.0'},
      {
        listChanged: {
          tools: {debounceMs: 0, onChanged: (error, tools) => !error && tools && onToolsChanged(tools)},
        },
      },
    )
    if (kind === 'stdio') {
      await client.connect(new StdioClientTransport({...fixtureCommand(args), stderr: 'ignore'}))
    } else {
      fixture = await startHttpFixture({transport: kind, args})
      const url = new URL(fixture.url)
      await client.connect(
        kind === 'http' ? new StreamableHTTPClientTransport(url) : new SSEClientTransport(url),
      )
    }

    connected = {client, toolsChanged}
    return connected
  }

  it('lists every fixture tool, with input and output schemas', async () => {
    const {client} = await connect(['--extra-tools', '3'])
    const {tools} = await client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names).toEqual(
      expect.arrayContaining(['add', 'structured', 'bad_structured', 'sample', 'extra_2']),
    )
    expect(names).toHaveLength(25)
    expect(tools.find((tool) => tool.name === 'delete_item')?.annotations).toMatchObject({
      destructiveHint: true,
    })
    const add = tools.find((tool) => tool.name === 'add')
    expect(add?.inputSchema.required).toEqual(['a', 'b'])
    expect(add?.outputSchema?.properties).toHaveProperty('sum')
  })

  it('answers add and structured with structured content and its JSON as text', async () => {
    const {client} = await connect()
    const sum = await client.callTool({name: 'add', arguments: {a: 2, b: 3}})
    expect(sum.structuredContent).toEqual({sum: 5})
    expect(sum.content).toEqual([{type: 'text', text: '{"sum":5}'}])

    const rows = await client.callTool({
      name: 'structured',
      arguments: {
        ticker: 'ACME',
        limit: 2,
        fields: ['profit'],
        options: {currency: 'EUR'},
      },
    })
    expect(rows.structuredContent).toEqual({
      ticker: 'ACME',
      currency: 'EUR',
      rows: [
        {period: 0, profit: 10},
        {period: 1, profit: 20},
      ],
    })
  })

  it('delivers a result that violates its own outputSchema (the client, not the server, objects)', async () => {
    const {client} = await connect()
    await client.listTools() // the client validates against the schemas it has listed
    await expect(client.callTool({name: 'bad_structured', arguments: {}})).rejects.toThrow(/output schema/)
  })

  it('sends tools/list_changed after trigger_list_changed, with the new tool listed', async () => {
    const {client, toolsChanged} = await connect()
    await client.callTool({name: 'trigger_list_changed', arguments: {remove: 'echo'}})
    const names = (await within(toolsChanged, 10_000, 'tools/list_changed')).map((tool) => tool.name)
    expect(names).toContain('dynamic_0')
    expect(names).not.toContain('echo')
  })

  it('records every tools/call it receives in the counter file, even ones with invalid arguments', async () => {
    const {client} = await connect(['--counter-file', counterFile])
    await client.callTool({name: 'echo', arguments: {text: 'hi'}})
    const invalid = await client.callTool({name: 'echo', arguments: {text: 42}})
    expect(invalid.isError).toBe(true)
    const count = await client.callTool({name: 'call_count', arguments: {}})
    expect(count.structuredContent).toEqual({calls: 3})
    expect(readFileSync(counterFile, 'utf8')).toBe('echo\necho\ncall_count\n')
  })

  it('gets a clean refusal when it asks a client without sampling support to sample', async () => {
    const {client} = await connect()
    const result = await client.callTool({name: 'sample', arguments: {}})
    expect(result.content).toEqual([
      {type: 'text', text: expect.stringMatching(/^refused: .*Method not found/)},
    ])
  })
})

// 2026-07-28 clients: serveStdio and createMcpHandler serve the modern era next to the 2025 one.
describe.each<'stdio' | 'http'>(['stdio', 'http'])('fixture server over %s, 2026-07-28 era', (kind) => {
  let fixture: HttpFixture | undefined
  let client: Client | undefined

  afterEach(async () => {
    await client?.close()
    await fixture?.stop()
    client = undefined
    fixture = undefined
  })

  it('negotiates 2026-07-28, answers calls and announces tool changes', async () => {
    let onToolsChanged!: (tools: Tool[]) => void
    const toolsChanged = new Promise<Tool[]>((resolve) => {
      onToolsChanged = resolve
    })
    client = new Client(
      {name: 'fixture-test', version: '1.0.0'},
      {
        versionNegotiation: {mode: 'auto'},
        listChanged: {
          tools: {debounceMs: 0, onChanged: (error, tools) => !error && tools && onToolsChanged(tools)},
        },
      },
    )
    if (kind === 'stdio') {
      await client.connect(new StdioClientTransport({...fixtureCommand(), stderr: 'ignore'}))
    } else {
      fixture = await startHttpFixture({transport: 'http'})
      await client.connect(new StreamableHTTPClientTransport(new URL(fixture.url)))
    }

    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const sum = await client.callTool({name: 'add', arguments: {a: 1, b: 2}})
    expect(sum.structuredContent).toEqual({sum: 3})
    await client.callTool({name: 'trigger_list_changed', arguments: {}})
    const names = (await within(toolsChanged, 10_000, 'tools/list_changed')).map((tool) => tool.name)
    expect(names).toContain('dynamic_0')
  })
})

describe('fixture server failure modes', () => {
  it('answers every HTTP request with the status given by --http-status', async () => {
    const fixture = await startHttpFixture({transport: 'http', args: ['--http-status', '401']})
    try {
      const response = await fetch(fixture.url, {method: 'POST', body: '{}'})
      expect(response.status).toBe(401)
    } finally {
      await fixture.stop()
    }
  })

  it('fails to start with a clear error when the server exits at start', async () => {
    await expect(startHttpFixture({transport: 'http', args: ['--exit-at-start']})).rejects.toThrow(
      /exited \(code 1.*before listening/s,
    )
  })
})
