// @tier integration
import {Client as ClientV2} from '@modelcontextprotocol/client'
import {StdioClientTransport as StdioV2} from '@modelcontextprotocol/client/stdio'
import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport as StdioV1} from '@modelcontextprotocol/sdk/client/stdio.js'
import {ToolListChangedNotificationSchema} from '@modelcontextprotocol/sdk/types.js'
// What serve tells its client of the downstream servers (SPEC §5): `instructions` naming each
// server with its tool count, from the last session's catalogue while servers connect (a server
// that takes 10 s to start is named with its count at once), list_changed when a server's tools
// change, execute_program always loaded, the other two findable by a server's name, and a brief
// inspect of server-memory's nine tools within 160 bytes a tool. The built binary, real servers,
// a real SDK client of each era.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it, vi} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {prepareServe} from '../helpers/serve.js'
import {testDependency} from '../helpers/test-deps.js'

const MEMORY = testDependency('@modelcontextprotocol/server-memory/dist/index.js')
const SLOW_START_MS = 10_000

interface Tool {
  name: string
  description?: string
  _meta?: Record<string, unknown>
}

interface Connected {
  instructions: string | undefined
  /** How many tools/list_changed notifications arrived so far. */
  changes(): number
  listTools(): Promise<Tool[]>
  call(name: string, args: Record<string, unknown>): Promise<string>
  close(): Promise<void>
}

async function connect(era: 'v1' | 'v2', args: string[], env: Record<string, string>): Promise<Connected> {
  const params = {command: process.execPath, args, env, stderr: 'pipe' as const}
  let changes = 0
  const text = (result: unknown) =>
    ((result as {content: Array<{text?: string}>}).content ?? []).map((c) => c.text ?? '').join('\n')
  if (era === 'v1') {
    const client = new ClientV1({name: 'catalogue-v1', version: '1.0.0'})
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++
    })
    await client.connect(new StdioV1(params))
    return {
      instructions: client.getInstructions(),
      changes: () => changes,
      listTools: async () => (await client.listTools()).tools,
      call: async (name, a) =>
        text(await client.callTool({name, arguments: a}, undefined, {timeout: 60_000})),
      close: () => client.close(),
    }
  }
  const client = new ClientV2(
    {name: 'catalogue-v2', version: '1.0.0'},
    {versionNegotiation: {mode: 'auto'}, listChanged: {tools: {onChanged: () => changes++}}},
  )
  await client.connect(new StdioV2(params))
  return {
    instructions: client.getInstructions(),
    changes: () => changes,
    listTools: async () => (await client.listTools()).tools as Tool[],
    call: async (name, a) => text(await client.callTool({name, arguments: a}, {timeout: 60_000})),
    close: () => client.close(),
  }
}

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, {recursive: true, force: true})
})

describe.each(['v1', 'v2'] as const)('serve instructions and the catalogue, SDK %s client', (era) => {
  it('name every server with its tool count, from the cache while a slow one starts; list_changed on a change', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'ptc-catalogue-cache-'))
    dirs.push(cache)
    const memoryFile = join(cache, 'memory.jsonl')
    const setup = prepareServe({
      servers: [
        {name: 'memory', command: process.execPath, args: [MEMORY], env: {MEMORY_FILE_PATH: memoryFile}},
        {name: 'fx', ...fixtureCommand(['--name', 'fx'])},
        {name: 'slow', ...fixtureCommand(['--name', 'slow', '--delay-start-ms', `${SLOW_START_MS}`])},
      ],
    })
    const env = {...setup.env, XDG_CACHE_HOME: cache}
    let slowTools = 0
    try {
      // First session: nothing known yet, every server named, as connecting.
      const first = await connect(era, setup.args, env)
      try {
        expect(first.instructions).toContain('write one Python program with execute_program')
        for (const name of ['memory', 'fx', 'slow'])
          expect(first.instructions).toContain(`- ${name} (connecting)`)
        const tools = await first.listTools()
        const byName = new Map(tools.map((tool) => [tool.name, tool]))
        expect(byName.get('execute_program')?._meta?.['anthropic/alwaysLoad']).toBe(true)
        expect(byName.get('list_callable_tools')?._meta?.['anthropic/alwaysLoad']).toBeUndefined()
        for (const tool of ['list_callable_tools', 'inspect_tool'])
          expect(byName.get(tool)?.description?.split('\n')[0]).toMatch(/memory.*fx.*slow/)

        // The servers connect: their tools are what the catalogue said no longer.
        await vi.waitFor(() => expect(first.changes()).toBeGreaterThan(0), {timeout: 30_000, interval: 100})
        // A call to the slow server waits for it; then its tools change.
        expect(
          await first.call('execute_program', {code: 'print(await mcp__slow__echo(text="up"))'}),
        ).toContain('up')
        const before = first.changes()
        const counted = /slow \((\d+) tools\)/
        const countBefore = Number(counted.exec(await listDescription(first))?.[1])
        await first.call('execute_program', {code: 'print(await mcp__slow__trigger_list_changed())'})
        await vi.waitFor(() => expect(first.changes()).toBeGreaterThan(before), {
          timeout: 20_000,
          interval: 100,
        })
        slowTools = countBefore + 1
        expect(await listDescription(first)).toContain(`slow (${slowTools} tools)`)
      } finally {
        await first.close()
      }

      // Second session: named with their counts before any has connected (slow takes 10 s).
      const started = Date.now()
      const second = await connect(era, setup.args, env)
      try {
        expect(Date.now() - started).toBeLessThan(SLOW_START_MS)
        const instructions = second.instructions!
        expect(instructions.length).toBeLessThanOrEqual(2000)
        expect(instructions).toMatch(/^- memory \(9 tools\): /m)
        expect(instructions).toMatch(/^- fx \(\d+ tools\): /m)
        // Its last count: the session that saw it ended with one tool more than it started with.
        expect(instructions).toContain(`- slow (${slowTools} tools): `)
        expect(instructions).not.toContain('connecting')

        // Brief is brief: server-memory's nine tools within 160 bytes each on average.
        const brief = await second.call('inspect_tool', {tool_names: 'mcp__memory__*', brief: true})
        for (const tool of ['read_graph', 'search_nodes', 'add_observations']) expect(brief).toContain(tool)
        expect(Buffer.byteLength(brief) / 9, brief).toBeLessThanOrEqual(160)
      } finally {
        await second.close()
      }
    } finally {
      setup.cleanup()
    }
  }, 150_000)
})

async function listDescription(client: Connected): Promise<string> {
  const tools = await client.listTools()
  return tools.find((tool) => tool.name === 'list_callable_tools')?.description ?? ''
}

describe('serve.always_load', () => {
  it('false: execute_program is deferred like the other two', async () => {
    const setup = prepareServe({servers: [], serve: {always_load: false}})
    try {
      const client = await connect('v2', setup.args, setup.env)
      try {
        const execute = (await client.listTools()).find((tool) => tool.name === 'execute_program')
        expect(execute?._meta?.['anthropic/maxResultSizeChars']).toBeGreaterThan(0)
        expect(execute?._meta).not.toHaveProperty('anthropic/alwaysLoad')
        expect(client.instructions).toContain('No servers are configured yet')
      } finally {
        await client.close()
      }
    } finally {
      setup.cleanup()
    }
  }, 30_000)
})
