// @tier integration
import {Client as ClientV2} from '@modelcontextprotocol/client'
import {StdioClientTransport as StdioV2} from '@modelcontextprotocol/client/stdio'
import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport as StdioV1} from '@modelcontextprotocol/sdk/client/stdio.js'
// `ptc-mcp serve` end to end: the built binary, real downstream fixture servers, real sandboxed
// Python children, driven by a real 2025-era client (SDK v1) and a real 2026-07-28 client (SDK v2).
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {USUAL_SANDBOX_TIERS} from '../../src/sandbox/index.js'
import {INITIAL_CONNECT_WAIT_MS} from '../../src/shared/limits.js'
import {fixtureCommand} from '../fixtures/start-fixture.js'
import {startRawServe} from '../helpers/json-rpc.js'
import {descendants, isAlive, programInterpreters} from '../helpers/processes.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const fixture = fixtureCommand()
const baseConfig = {
  servers: [{name: 'fx', command: fixture.command, args: fixture.args}],
  execution: {timeout_seconds: 20},
}

interface TextResult {
  content: Array<{type: string; text?: string}>
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

const firstText = (result: unknown) => (result as TextResult).content[0]?.text ?? ''

type AnyClient = {
  // v2 takes request options second; these tests pass them only to v2 clients.
  callTool(params: {name: string; arguments?: Record<string, unknown>}, options?: object): Promise<unknown>
  listTools(): Promise<{tools: Array<{name: string; outputSchema?: unknown}>}>
  close(): Promise<void>
}

async function connect(era: 'v1' | 'v2', setup: ServeSetup): Promise<{client: AnyClient; pid: number}> {
  const params = {command: process.execPath, args: setup.args, env: setup.env, stderr: 'pipe' as const}
  if (era === 'v1') {
    const transport = new StdioV1(params)
    const client = new ClientV1({name: 'e2e-v1', version: '1.0.0'})
    await client.connect(transport)
    return {client: client as unknown as AnyClient, pid: transport.pid!}
  }
  const transport = new StdioV2(params)
  const client = new ClientV2({name: 'e2e-v2', version: '1.0.0'}, {versionNegotiation: {mode: 'auto'}})
  await client.connect(transport)
  return {client: client as unknown as AnyClient, pid: transport.pid!}
}

/**
 * Connects and waits until the fixture's tools are listed: on a loaded machine the fixture (started
 * through tsx) can take longer than the few seconds list_callable_tools waits for a first attempt.
 */
async function connectReady(era: 'v1' | 'v2', setup: ServeSetup): Promise<{client: AnyClient; pid: number}> {
  const connected = await connect(era, setup)
  const deadline = Date.now() + 45_000
  for (;;) {
    const names = firstText(await connected.client.callTool({name: 'list_callable_tools', arguments: {}}))
    if (names.includes('mcp__fx__add')) return connected
    if (Date.now() > deadline) throw new Error(`the fixture never connected: ${names}`)
  }
}

describe.each(['v1', 'v2'] as const)('serve with an SDK %s client', (era) => {
  let setup: ServeSetup
  let client: AnyClient

  beforeAll(async () => {
    setup = prepareServe(baseConfig)
    ;({client} = await connectReady(era, setup))
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    setup?.cleanup()
  })

  it('lists exactly the three tools, execute_program with an output schema', async () => {
    const {tools} = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      'execute_program',
      'inspect_tool',
      'list_callable_tools',
    ])
    expect(tools.find((t) => t.name === 'execute_program')?.outputSchema).toBeTruthy()
  })

  it('list_callable_tools returns the sorted namespaced names of the fixture', async () => {
    const names = JSON.parse(firstText(await client.callTool({name: 'list_callable_tools', arguments: {}})))
    expect(names).toContain('mcp__fx__add')
    expect(names).toEqual([...names].sort())
  })

  it('inspect_tool shows the signature, and suggests names for an unknown tool', async () => {
    const described = JSON.parse(
      firstText(await client.callTool({name: 'inspect_tool', arguments: {tool_name: 'mcp__fx__add'}})),
    )
    expect(described.signature).toBe('await mcp__fx__add(*, a: float, b: float) -> {"sum": float}')
    const unknown = (await client.callTool({
      name: 'inspect_tool',
      arguments: {tool_name: 'mcp__fx__ad'},
    })) as TextResult
    expect(unknown.isError).toBe(true)
    expect(unknown.content[0]?.text).toContain('mcp__fx__add')
  })

  it('execute_program returns the text of SPEC §8 and the structured content', async () => {
    const code = 'r = await mcp__fx__add(a=2, b=3)\nprint("sum", r["sum"])\nemit({"sum": r["sum"]})'
    const result = (await client.callTool({name: 'execute_program', arguments: {code}})) as TextResult
    expect(result.isError).toBeFalsy()
    const text = firstText(result)
    expect(text).toMatch(
      /^\[Script executed successfully\]\nsum 5\n--- result ---\n\{\n {2}"sum": 5\n\}\n\[tool calls: 1; \d+\.\ds\]$/,
    )
    // The text's facts in its order, nothing empty; the usual sandbox (this machine's) unnamed.
    const {sandbox, ...rest} = result.structuredContent ?? {}
    if (sandbox !== undefined) expect(USUAL_SANDBOX_TIERS).not.toContain(sandbox)
    expect(rest).toEqual({
      ok: true,
      output: 'sum 5\n',
      result: {sum: 5},
      trace: expect.stringMatching(/^\[tool calls: 1; \d+\.\ds\]$/),
    })
  })

  it('a failing program is an isError result with the traceback and the output before it', async () => {
    const result = (await client.callTool({
      name: 'execute_program',
      arguments: {code: 'print("before")\nraise ValueError("nope")'},
    })) as TextResult
    expect(result.isError).toBe(true)
    const text = firstText(result)
    expect(text).toMatch(/^\[Script execution failed\]\n/)
    expect(text).toContain('File "<program>", line 2')
    expect(text).toContain('ValueError: nope')
    expect(text).toContain('--- output before the error ---\nbefore')
    expect(Object.keys(result.structuredContent ?? {}).filter((key) => key !== 'sandbox')).toEqual([
      'ok',
      'error',
      'output',
    ])
    expect(result.structuredContent).toMatchObject({ok: false, output: 'before\n'})
    expect(result.structuredContent?.error).toContain('ValueError: nope')
  })
})

describe('serve under load and at shutdown', () => {
  it('runs two programs at once, each finishing on its own', async () => {
    const setup = prepareServe(baseConfig)
    const {client} = await connect('v2', setup)
    try {
      const finished: string[] = []
      const slow = client
        .callTool({name: 'execute_program', arguments: {code: 'import time\ntime.sleep(1.5)\nprint("slow")'}})
        .then((r) => finished.push(firstText(r)))
      const fast = client
        .callTool({name: 'execute_program', arguments: {code: 'print("fast")'}})
        .then((r) => finished.push(firstText(r)))
      await Promise.all([slow, fast])
      expect(finished[0]).toContain('fast')
      expect(finished[1]).toContain('slow')
    } finally {
      await client.close()
      setup.cleanup()
    }
  })

  it("a cancelled call's child is gone at once, long before its program would end", async () => {
    // No warm pool: the only Python child is the running program.
    const setup = prepareServe({...baseConfig, execution: {timeout_seconds: 60, warm_pool: 0}})
    const {client, pid} = await connect('v2', setup)
    try {
      // The program's interpreter (spawned, or forked by the fork server).
      const pythons = () => programInterpreters(pid)
      const abort = new AbortController()
      const call = client
        .callTool(
          {name: 'execute_program', arguments: {code: 'import time\ntime.sleep(60)'}},
          {signal: abort.signal},
        )
        .catch((error: unknown) => error)
      await expect.poll(() => pythons().length > 0, {timeout: 15_000}).toBe(true)
      const running = pythons()
      abort.abort()
      await call
      // The program sleeps 60 s; the bound is for a loaded 2-core box to read the cancellation.
      await expect.poll(() => running.every((p) => !isAlive(p)), {timeout: 5000}).toBe(true)
    } finally {
      await client.close()
      setup.cleanup()
    }
  })

  it('a long program called with a progress token receives progress notifications', async () => {
    const setup = prepareServe(baseConfig)
    const {client} = await connectReady('v2', setup)
    try {
      const progress: number[] = []
      const code = 'for i in range(3):\n    await mcp__fx__slow(ms=100)\nprint("done")'
      const result = await client.callTool(
        {name: 'execute_program', arguments: {code}},
        {
          onprogress: (p: {progress: number}) => progress.push(p.progress),
        },
      )
      expect(firstText(result)).toContain('done')
      expect(progress.length).toBeGreaterThanOrEqual(3)
      expect(progress).toEqual([...progress].sort((a, b) => a - b))
    } finally {
      await client.close()
      setup.cleanup()
    }
  })

  it('answers tools/list without waiting for a downstream server that hangs at startup', async () => {
    const hanging = fixtureCommand(['--hang-start'])
    const setup = prepareServe({servers: [{name: 'stuck', command: hanging.command, args: hanging.args}]})
    const {client} = await connect('v1', setup)
    try {
      const started = performance.now()
      const {tools} = await client.listTools()
      expect(tools).toHaveLength(3)
      // Waiting would take the first-attempt wait (5 s) at least; below it holds on a loaded box.
      expect(performance.now() - started).toBeLessThan(INITIAL_CONNECT_WAIT_MS - 1000)
    } finally {
      await client.close()
      setup.cleanup()
    }
  })

  for (const how of ['SIGTERM', 'stdin EOF'] as const) {
    it(`${how}: exits 0 within 5 s, leaving no child, downstream process or scratch directory`, async () => {
      const setup = prepareServe(baseConfig)
      const serve = await startRawServe(setup)
      const {child} = serve
      try {
        await serve.callTool('execute_program', {code: 'print(await mcp__fx__add(a=1, b=1))'}, 45_000)
        const tree = descendants(child.pid!)
        expect(tree.length).toBeGreaterThan(0) // the downstream fixture and the warm pool at least

        const started = performance.now()
        if (how === 'SIGTERM') child.kill('SIGTERM')
        else child.stdin.end()
        expect(await serve.exited).toBe(0)
        // Prompt, not fast: a bound that holds on a loaded 2-core box.
        expect(performance.now() - started).toBeLessThan(5000)
        await expect.poll(() => tree.every((p) => !isAlive(p)), {timeout: 5000}).toBe(true)
        expect(setup.scratchDirs()).toEqual([])
      } finally {
        await serve.kill()
        setup.cleanup()
      }
    })
  }

  it('writes nothing but JSON-RPC on stdout while downstream servers chatter and crash', async () => {
    const noisy = fixtureCommand(['--log-stderr'])
    const setup = prepareServe({servers: [{name: 'fx', command: noisy.command, args: noisy.args}]})
    const serve = await startRawServe(setup)
    try {
      const code = [
        'import sys, os',
        'print("{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 99}")',
        'print("to stderr", file=sys.stderr)',
        'os.write(1, b"raw fd 1\\n")',
        'await mcp__fx__echo(text="hi")',
        'try:\n    await mcp__fx__crash()\nexcept ToolError as e:\n    print("crash:", e)',
      ].join('\n')
      const reply = await serve.callTool('execute_program', {code}, 45_000)
      expect(JSON.stringify(reply)).toContain('crash:')
      await serve.callTool('list_callable_tools', {}, 45_000)
      expect(serve.lines.invalid).toEqual([])
      expect(serve.lines.all.length).toBeGreaterThanOrEqual(3)
    } finally {
      await serve.kill()
      setup.cleanup()
    }
  })
})
