// @tier integration
/**
 * serve under the user's limit on MCP output (MAX_MCP_OUTPUT_TOKENS, SPEC §5): what a client is
 * told (maxResultSizeChars, the output cap in the description), what it receives (text and JSON
 * within 4 characters a token, the cut note first, the whole output in its file), and a value
 * that is no number (ignored, with a warning). Also: progress notifications say what the program
 * is doing.
 */
import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {readFileSync} from 'node:fs'
import {performance} from 'node:perf_hooks'
import {afterEach, describe, expect, it} from 'vitest'

import {CALLS_PROGRESS_MS} from '../../src/mcp/progress.js'
import {fixtureCommand} from '../fixtures/start-fixture.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const fixture = fixtureCommand()
const config = {
  servers: [{name: 'fx', command: fixture.command, args: fixture.args}],
  execution: {timeout_seconds: 30},
}

interface Answer {
  content: Array<{type: string; text?: string}>
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

let setup: ServeSetup | undefined
let client: Client | undefined
let stderr = ''

afterEach(async () => {
  await client?.close()
  setup?.cleanup()
  client = undefined
  setup = undefined
  stderr = ''
})

async function connect(env: Record<string, string>): Promise<Client> {
  setup = prepareServe(config)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: setup.args,
    env: {...setup.env, ...env},
    stderr: 'pipe',
  })
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  client = new Client({name: 'limit-test', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
  await client.connect(transport)
  return client
}

async function execute(
  c: Client,
  code: string,
  onprogress?: (p: {message?: string}) => void,
): Promise<Answer> {
  return (await c.callTool(
    {name: 'execute_program', arguments: {code}},
    {timeout: 60_000, ...(onprogress && {onprogress, resetTimeoutOnProgress: true})},
  )) as unknown as Answer
}

const chars = (answer: Answer): number =>
  (answer.content[0]?.text ?? '').length + JSON.stringify(answer.structuredContent).length

describe('MAX_MCP_OUTPUT_TOKENS', () => {
  it('2000 tokens: the tool says so, and 200 KB printed reaches the client in 8,000 characters, the cut note first', async () => {
    const c = await connect({MAX_MCP_OUTPUT_TOKENS: '2000'})
    const {tools} = await c.listTools()
    const execute_ = tools.find((tool) => tool.name === 'execute_program')!
    expect(execute_._meta?.['anthropic/maxResultSizeChars']).toBe(8000)
    // The model is told the output cap in force.
    expect(execute_.description).toMatch(/ 3250 bytes of output/)

    const answer = await execute(c, 'for i in range(2000):\n    print(f"line {i:05d} " + "x" * 90)')
    expect(answer.isError).toBeFalsy()
    expect(chars(answer)).toBeLessThanOrEqual(8000)
    const output = answer.structuredContent?.output as string
    const note = /^\.\.\. \[(\d+) bytes omitted: the whole output is in (\S+)\]\n/.exec(output)
    expect(note, output.slice(0, 300)).not.toBeNull()
    expect(answer.content[0]?.text?.split('\n')[1]).toBe(note![0].trim())
    expect(readFileSync(note![2]!, 'utf8')).toHaveLength(2000 * 102)
    expect(output).toMatch(/^line 01999 x+\n$/m)
    // A small answer is untouched.
    expect((await execute(c, 'print(1)')).structuredContent).toMatchObject({ok: true, output: '1\n'})
  }, 90_000)

  it('a value that is no number of tokens is ignored, with a warning', async () => {
    const c = await connect({MAX_MCP_OUTPUT_TOKENS: 'lots'})
    const {tools} = await c.listTools()
    const size = tools.find((tool) => tool.name === 'execute_program')!._meta?.[
      'anthropic/maxResultSizeChars'
    ]
    expect(size).toBeGreaterThan(100_000)
    const answer = await execute(c, 'print("y" * 30_000)')
    expect(answer.structuredContent?.output).toBe(`${'y'.repeat(30_000)}\n`)
    expect(stderr).toMatch(/MAX_MCP_OUTPUT_TOKENS="lots" is not a whole number of tokens above 0: ignored/)
  }, 90_000)
})

describe('progress notifications (SPEC §5)', () => {
  it('say what a long program is doing: the calls it completed, and for how long it has run', async () => {
    const c = await connect({})
    const messages: string[] = []
    const answer = await execute(
      c,
      'await mcp__fx__add(a=1, b=2)\nawait asyncio.sleep(6)\nprint("done")',
      (p) => messages.push(p.message ?? ''),
    )
    expect(answer.structuredContent).toMatchObject({ok: true, output: 'done\n'})
    expect(messages).toContain('1 tool call completed')
    expect(
      messages.some((message) => /^running for \d+s; 1 tool call completed$/.test(message)),
      messages.join('\n'),
    ).toBe(true)
  }, 90_000)

  it('report the calls of a busy program a few times a second, the last count before the answer', async () => {
    const c = await connect({})
    const messages: string[] = []
    const started = performance.now()
    const answer = await execute(
      c,
      'for i in range(90):\n    await mcp__fx__add(a=i, b=1)\nprint("done")',
      (p) => messages.push(p.message ?? ''),
    )
    const ms = performance.now() - started
    expect(answer.structuredContent).toMatchObject({ok: true, output: 'done\n'})
    const calls = messages.filter((message) => message.endsWith('completed'))
    // One at the first call, then at most one every 100 ms (the default limit is 100 calls): not one per call.
    expect(calls.length, calls.join('\n')).toBeLessThanOrEqual(2 + ms / CALLS_PROGRESS_MS)
    expect(calls.length).toBeLessThan(90)
    expect(calls[0]).toBe('1 tool call completed')
    expect(calls.at(-1)).toBe('90 tool calls completed')
  }, 90_000)
})
