/**
 * Non-text content of tool results reaches programs as `Media` (SPEC §6, §14). Real
 * server-everything (`@modelcontextprotocol/server-everything`) from npm, a real ToolRegistry and real Python children.
 */
import {createRequire} from 'node:module'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import type {PythonInfo} from '../../src/sandbox/backend.js'

import {executionSchema} from '../../src/config/schema.js'
import {ToolRegistry} from '../../src/downstream/registry.js'
import {ProgramEngine} from '../../src/execution/engine.js'
import {resolvePython} from '../../src/execution/python.js'
import {silentLogger} from '../../src/log.js'
import {noneBackend} from '../../src/sandbox/none.js'

const require = createRequire(import.meta.url)
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js')
const TINY_IMAGE_MODULE =
  require.resolve('@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js')

let python: PythonInfo
let registry: ToolRegistry
let engine: ProgramEngine
let png: Buffer

beforeAll(async () => {
  python = await resolvePython(process.env.PTC_MCP_TEST_PYTHON ?? 'python3')
  png = Buffer.from(((await import(TINY_IMAGE_MODULE)) as {MCP_TINY_IMAGE: string}).MCP_TINY_IMAGE, 'base64')
  registry = new ToolRegistry(
    {
      servers: [
        {name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING], env: {}},
      ],
    },
    {logger: silentLogger},
  )
  registry.start()
  await registry.waitForInitialConnections(30_000)
  engine = new ProgramEngine({
    execution: executionSchema.parse({timeout_seconds: 30, warm_pool: 0, sandbox: 'none'}),
    host: registry,
    backend: noneBackend,
    python,
    logger: silentLogger,
  })
}, 60_000)

afterAll(async () => {
  await engine?.close()
  await registry?.close()
})

describe('Media in programs', () => {
  test("get-tiny-image's PNG is a Media object whose bytes are the PNG", async () => {
    const outcome = await engine.run(
      [
        'import hashlib',
        'r = await mcp__everything__get_tiny_image()',
        'm = r["_media"][0]',
        'print(sorted(r), type(m).__name__, isinstance(m, Media))',
        'print(m.type, m.mime_type, m.size, len(m.bytes()), m.uri, m.text)',
        'print(hashlib.sha256(m.bytes()).hexdigest(), m.data == __import__("base64").b64encode(m.bytes()).decode())',
        'print(r.get("_notes"))',
        'print(r["data"].startswith("Here"))',
        'print(repr(m))',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    const {createHash} = await import('node:crypto')
    const lines = outcome.output.trimEnd().split('\n')
    expect(lines[0]).toBe("['_media', 'data'] Media True")
    expect(lines[1]).toBe(`image image/png ${png.length} ${png.length} None None`)
    expect(lines[2]).toBe(`${createHash('sha256').update(png).digest('hex')} True`)
    // The texts around the image are the string value; no placeholder note for the image.
    expect(lines[3]).toBe('None')
    expect(lines[4]).toBe('True')
    expect(lines[5]).toBe(`<Media image image/png, ${png.length} bytes>`)
  })

  test('an embedded text resource is Media with .text and .uri', async () => {
    const outcome = await engine.run(
      [
        'r = await mcp__everything__get_resource_reference(resourceType="Text", resourceId=1)',
        'm = [x for x in r["_media"]][0]',
        'print(m.type, m.uri, m.text == m.bytes().decode(), m.size == len(m.text.encode()))',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    expect(outcome.output).toMatch(/^resource \S+ True True\n$/)
  })
})
