// @tier unit
import {InMemoryTransport} from '@modelcontextprotocol/client'
import {McpServer} from '@modelcontextprotocol/server'
import {existsSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'

import type {ServerTransport} from '../downstream/transport/server-transport.js'
import type {ServerConfig} from './schema.js'

import {architectureRecipe, productFiles} from '../../test/helpers/repository-text.js'
import {Redactor} from '../downstream/connection/redactor.js'
import {ServerSupervisor} from '../downstream/connection/supervisor.js'
import {serverIdentity} from '../downstream/tools/shape-store.js'
import {CONNECTORS} from '../downstream/transport/transports.js'
import {silentLogger} from '../shared/log.js'
import {PACKAGE_ROOT} from '../shared/package-root.js'
import {isRemoteServer, type TransportEntry, transportEntry, TRANSPORTS} from './transports.js'

/**
 * ARCHITECTURE.md's "A downstream transport", followed by a test: a transport that exists only
 * here (a server in memory) is one entry in TRANSPORTS and one row in CONNECTORS, and the code that
 * validates, shows, identifies, redacts and connects servers takes it as it takes stdio.
 */

interface MemoryServerConfig {
  name: string
  transport: 'memory'
  token: string
}

const memorySchema = z.strictObject({name: z.string(), transport: z.literal('memory'), token: z.string()})

const memoryEntry: TransportEntry<MemoryServerConfig> & {schema: typeof memorySchema} = {
  schema: memorySchema,
  remote: false,
  claudeTypes: ['memory'],
  identity: (server) => `memory ${server.name}`,
  expandable: (server) => [server.token],
  secrets: (server) => [server.token],
  written: (server) => ({name: server.name, transport: server.transport}),
}

function memoryServer(): McpServer {
  const server = new McpServer({name: 'in-memory', version: '1.0.0'})
  server.registerTool(
    'shout',
    {description: 'Upper-cases text.', inputSchema: z.object({text: z.string()})},
    ({text}) => ({content: [{type: 'text', text: text.toUpperCase()}]}),
  )
  return server
}

/** The transport's module: each attempt links a fresh in-memory pair to a fresh server. */
function memoryTransport(): ServerTransport {
  return {
    create() {
      const [client, server] = InMemoryTransport.createLinkedPair()
      memoryServer()
        .connect(server)
        .catch(() => {})
      return client
    },
    failureCause: (error) => ({kind: 'other', message: String(error)}),
    closedReason: () => 'the in-memory server closed',
    pingsOnError: false,
  }
}

const tables = {
  transports: TRANSPORTS as Record<string, unknown>,
  connectors: CONNECTORS as Record<string, unknown>,
}

// What the config would hold once the entry's schema is in the union: typed as a ServerConfig.
const config = memorySchema.parse({
  name: 'mem',
  transport: 'memory',
  token: 'sk-memory-4f9a8b7c6d5e',
}) as unknown as ServerConfig

describe('a test-only transport registered through the tables', () => {
  beforeAll(() => {
    tables.transports.memory = memoryEntry
    tables.connectors.memory = memoryTransport
  })

  afterAll(() => {
    delete tables.transports.memory
    delete tables.connectors.memory
  })

  it("validates with its entry's schema", () => {
    expect(memorySchema.safeParse({name: 'mem', transport: 'memory'}).success).toBe(false)
    expect(transportEntry(config)).toBe(memoryEntry)
  })

  it('is shown, identified and redacted through its entry', () => {
    expect(isRemoteServer(config)).toBe(false)
    expect(transportEntry(config).written(config)).toEqual({name: 'mem', transport: 'memory'})
    expect(serverIdentity(config)).toBe('memory mem')
    expect(Redactor.fromConfig([config]).redact('token sk-memory-4f9a8b7c6d5e leaked')).not.toContain(
      '4f9a8b',
    )
  })

  it('connects through its CONNECTORS row, and its tool is called', async () => {
    const supervisor = new ServerSupervisor(config, {logger: silentLogger})
    try {
      supervisor.start()
      await supervisor.firstAttempt
      expect(supervisor.status()).toMatchObject({connected: true, transport: 'memory'})
      expect(supervisor.listTools().map((tool) => tool.tool)).toEqual(['shout'])
      const result = await supervisor.callTool('shout', {text: 'hi'}, {timeoutMs: 5000})
      expect(result.content).toEqual([{type: 'text', text: 'HI'}])
    } finally {
      await supervisor.close()
    }
  })

  it("ARCHITECTURE.md's recipe names at most three files, each of which exists", () => {
    const {text: recipe, files} = architectureRecipe('A downstream transport.')
    expect(files.size).toBeGreaterThan(0)
    expect(files.size).toBeLessThanOrEqual(3)
    for (const file of files) expect(existsSync(join(PACKAGE_ROOT, file)), file).toBe(true)
    expect(recipe).toMatch(/TRANSPORTS/)
  })
})

describe('transports are told apart by the table, not by name', () => {
  it("only the table and the transports' own modules compare a server's transport with a kind's name", () => {
    const kinds = Object.keys(TRANSPORTS).join('|')
    const byName = new RegExp(String.raw`[!=]==\s*'(${kinds})'|'(${kinds})'\s*[!=]==|case '(${kinds})'`)
    const comparing = productFiles(/\.ts$/)
      .filter((path) => byName.test(readFileSync(path, 'utf8')))
      .map((path) => basename(path))
      .sort()
    // transports.ts: the table (isStdioServer); the rest are the http and sse modules and their probe.
    expect(comparing).toEqual([
      'no-token-probe.ts',
      'remote-failure.ts',
      'remote-transport.ts',
      'transports.ts',
    ])
  })
})
