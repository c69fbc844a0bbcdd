// @tier integration
// What a broken or hostile client can send to `serve`: every bad message gets a clear answer
// (by id whenever there is one), and the server goes on serving.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type Message, type RawServe, resultText, startRawServe, toolResult} from '../helpers/json-rpc.js'
import {execute} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

/** The limit of one message on serve's stdin (MAX_TOOL_RESULT_CEILING, shared/limits.ts). */
const MESSAGE_LIMIT = 64 * 1024 * 1024

const errorOf = (message: Message) => message.error as {code: number; message: string} | undefined

describe('bad input to serve', () => {
  let setup: ServeSetup
  let serve: RawServe

  beforeAll(async () => {
    setup = prepareServe({servers: [], execution: {timeout_seconds: 30}})
    serve = await startRawServe(setup)
  }, 60_000)

  afterAll(async () => {
    if (serve) {
      // Nothing but JSON-RPC ever reached stdout, and the server shuts down cleanly.
      expect(serve.lines.invalid).toEqual([])
      serve.child.stdin.end()
      expect(await serve.exited).toBe(0)
      expect(setup.scratchDirs()).toEqual([])
    }
    setup?.cleanup()
  })

  /** Sends raw bytes and resolves with the next id-less error response. */
  async function idlessErrorAfter(raw: string | Buffer): Promise<{code: number; message: string}> {
    const seen = serve.lines.all.length
    serve.child.stdin.write(raw)
    const reply = await serve.lines.waitFor(
      (m) => serve.lines.all.indexOf(m) >= seen && m.id === undefined && m.error !== undefined,
    )
    return errorOf(reply)!
  }

  async function stillServing(): Promise<void> {
    expect((await serve.request('ping')).result).toEqual({})
  }

  it('a line that is not JSON (or not UTF-8) gets a parse error, and the next request is answered', async () => {
    for (const raw of [
      '{not json\n',
      Buffer.from([0xff, 0xfe, 0x7b, 0x0a]),
      '{"jsonrpc":"2.0","id":9,"method":\n',
    ]) {
      const error = await idlessErrorAfter(raw)
      expect(error.code).toBe(-32_700)
      expect(error.message).toMatch(/^Parse error: the line is not JSON/)
      await stillServing()
    }
    // Blank lines are not messages: nothing is answered, and the next request still is.
    serve.sendLine('')
    serve.sendLine('   ')
    await stillServing()
  })

  it('JSON that is not JSON-RPC gets Invalid Request, with its id when it has one', async () => {
    serve.sendLine('{"jsonrpc":"2.0","id":"bad-1","method":"tools/call","params":[1,2]}')
    const byId = await serve.lines.waitFor((m) => m.id === 'bad-1')
    expect(errorOf(byId)).toMatchObject({code: -32_600, message: expect.stringMatching(/^Invalid Request: /)})

    serve.sendLine('{"id":17,"method":"ping"}') // no "jsonrpc"
    expect(errorOf(await serve.lines.waitFor((m) => m.id === 17))?.code).toBe(-32_600)

    for (const raw of ['[{"jsonrpc":"2.0","id":18,"method":"ping"}]\n', '42\n', '"text"\n', 'null\n']) {
      expect((await idlessErrorAfter(raw)).code).toBe(-32_600)
    }
    await stillServing()
  })

  it('an unknown method is Method not found; an unknown notification is ignored', async () => {
    const reply = await serve.request('tools/frobnicate', {})
    expect(errorOf(reply)).toMatchObject({code: -32_601})
    serve.send({jsonrpc: '2.0', method: 'notifications/frobnicated', params: {}})
    await stillServing()
  })

  it('wrong argument types and unknown tools are clear errors', async () => {
    const wrongType = toolResult(await serve.callTool('execute_program', {code: 42}))
    expect(wrongType.isError).toBe(true)
    expect(wrongType.content?.[0]?.text).toMatch(/code: Invalid input: expected string, received number/)

    const missing = toolResult(await serve.callTool('execute_program', {}))
    expect(missing.isError).toBe(true)
    expect(missing.content?.[0]?.text).toMatch(/code: Invalid input: expected string, received undefined/)

    const inspect = toolResult(await serve.callTool('inspect_tool', {tool_name: ['mcp__x__y']}))
    expect(inspect.isError).toBe(true)
    expect(inspect.content?.[0]?.text).toMatch(/tool_name: Invalid input: expected string, received array/)

    const notArguments = await serve.request('tools/call', {name: 'execute_program', arguments: 'print(1)'})
    expect(errorOf(notArguments)?.code).toBe(-32_602)

    const unknown = await serve.callTool('run_anything', {})
    expect(errorOf(unknown)).toMatchObject({code: -32_602, message: expect.stringMatching(/run_anything/)})
    await stillServing()
  })

  it('a program of many megabytes runs; a message over the limit gets an error by its id', async () => {
    // 40 MB of comment: framing is linear (the SDK's buffer needed minutes for this).
    const big = `# ${'x'.repeat(40 * 1024 * 1024)}\nprint("big program ran")`
    const run = await execute(serve, big, 30_000)
    expect(run.text).toBe('[Script executed successfully]\nbig program ran')

    // Over the limit: the id is found at the end (TypeScript SDK order) or at the start (Python SDK order).
    const huge = 'x'.repeat(MESSAGE_LIMIT + 1024)
    serve.sendLine(
      JSON.stringify({
        method: 'tools/call',
        params: {name: 'execute_program', arguments: {code: huge}},
        jsonrpc: '2.0',
        id: 'huge-end',
      }),
    )
    serve.sendLine(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'huge-start',
        method: 'tools/call',
        params: {name: 'execute_program', arguments: {code: huge}},
      }),
    )
    for (const id of ['huge-end', 'huge-start']) {
      const reply = await serve.lines.waitFor((m) => m.id === id, 30_000)
      expect(errorOf(reply)).toMatchObject({
        code: -32_600,
        message: expect.stringMatching(
          /^message of \d+ bytes is over the 67108864-byte limit; send a shorter program$/,
        ),
      })
    }
    expect(resultText(await serve.callTool('execute_program', {code: 'print(6 * 7)'}))).toBe(
      '[Script executed successfully]\n42',
    )
  }, 120_000)

  it('NUL bytes, lone surrogates and invalid UTF-8 in the code: a clear error or a faithful run', async () => {
    const nul = await execute(serve, 'x = 1\0\nprint(x)')
    expect(nul.isError).toBe(true)
    expect(nul.structured.error, nul.text).toBe('SyntaxError: source code string cannot contain null bytes')

    const surrogate = await execute(serve, 'x = 1\nprint("\uD800")')
    expect(surrogate.isError).toBe(true)
    expect(surrogate.structured.error, surrogate.text).toBe(
      "SyntaxError: the program is not valid Unicode text: lone surrogate '\\ud800' at line 2, column 8",
    )

    // Escapes in the source are fine: the program itself may make such strings.
    const escaped = await execute(serve, 'print("a\\0b", len("\\ud800"))')
    expect(escaped.structured).toMatchObject({ok: true, output: 'a\0b 1\n'})

    // Bytes that are not UTF-8 inside the JSON string arrive as U+FFFD.
    serve.child.stdin.write(
      Buffer.concat([
        Buffer.from(
          '{"jsonrpc":"2.0","id":"latin1","method":"tools/call","params":{"name":"execute_program","arguments":{"code":"print(\'caf',
        ),
        Buffer.from([0xe9]),
        Buffer.from('\')"}}}\n'),
      ]),
    )
    const latin1 = toolResult(await serve.lines.waitFor((m) => m.id === 'latin1'))
    expect(latin1.structuredContent).toMatchObject({ok: true, output: 'caf\uFFFD\n'})
    await stillServing()
  })
})
