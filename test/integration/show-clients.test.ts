// @tier integration
/**
 * show() end to end (SPEC §14): through `ptc-mcp serve` a real SDK v2 client receives the image as
 * MCP image content after the text; `ptc-mcp run` writes it to a file and prints the path. Real
 * server-everything (`@modelcontextprotocol/server-everything`) from npm as the downstream server.
 */
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {runCommand} from '@oclif/test'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative, sep} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {ROOT, withExitCode} from '../helpers/command-exit.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'
import {testDependency} from '../helpers/test-deps.js'

const EVERYTHING = testDependency('@modelcontextprotocol/server-everything/dist/index.js')
const TINY_IMAGE_MODULE = testDependency(
  '@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js',
)
const config = {
  servers: [{name: 'everything', command: process.execPath, args: [EVERYTHING]}],
  execution: {timeout_seconds: 30, warm_pool: 0},
}
const PROGRAM = [
  'r = await mcp__everything__get_tiny_image()',
  'image = r["_media"][0]',
  'show(image)',
  'print(image.mime_type, image.size)',
].join('\n')

let png: Buffer

beforeAll(async () => {
  png = Buffer.from(((await import(TINY_IMAGE_MODULE)) as {MCP_TINY_IMAGE: string}).MCP_TINY_IMAGE, 'base64')
})

describe('show() through serve, to a real v2 client', () => {
  let setup: ServeSetup
  let client: Client

  beforeAll(async () => {
    setup = prepareServe(config)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: setup.args,
      env: setup.env,
      stderr: 'pipe',
    })
    client = new Client({name: 'show-v2', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
    await client.connect(transport)
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    setup?.cleanup()
  })

  it('receives an image content item, after the text, whose bytes are the PNG', async () => {
    let result: {content: Array<{type: string; text?: string; data?: string; mimeType?: string}>}
    const deadline = Date.now() + 45_000
    // Until server-everything has connected (its first attempt may outlast the program's wait).
    for (;;) {
      result = (await client.callTool({name: 'execute_program', arguments: {code: PROGRAM}})) as typeof result
      if (!result.content[0]?.text?.includes('unknown tool') || Date.now() > deadline) break
    }
    const [first, second, ...rest] = result.content
    expect(first?.type).toBe('text')
    expect(first?.text).toContain(`image/png ${png.length}`)
    expect(second).toMatchObject({type: 'image', mimeType: 'image/png'})
    expect(Buffer.from(second!.data!, 'base64').equals(png)).toBe(true)
    expect(rest).toEqual([])
  })
})

describe('show() in ptc-mcp run', () => {
  it("writes the image into the run's artifacts and prints its path", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-show-run-'))
    try {
      const artifacts = join(dir, 'artifacts')
      const configPath = join(dir, 'config.yaml')
      writeFileSync(
        configPath,
        stringify({...config, execution: {...config.execution, artifacts_dir: artifacts}}),
      )
      const programPath = join(dir, 'show.py')
      writeFileSync(programPath, PROGRAM)
      const run = withExitCode(await runCommand(['run', '--config', configPath, programPath], {root: ROOT}))
      expect(run.exitCode ?? 0).toBe(0)
      const path = /\[shown image: (.+\.png)\]/.exec(run.stdout)?.[1]
      expect(path, run.stdout).toBeDefined()
      // <artifacts_dir>/<run-id>/shown/image-1.png: pruned with the run's other artifacts.
      expect(relative(artifacts, path!).split(sep)).toEqual([expect.any(String), 'shown', 'image-1.png'])
      expect(readFileSync(path!).equals(png)).toBe(true)
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })
})
