// @tier integration
// SPEC §12 end to end: the built `ptc-mcp serve` with Claude Code settings in a temporary HOME and
// project, two fixture servers (one with a dashed name) that count the calls they receive, and a
// real SDK v2 client that answers (or not) the approval questions asked by elicitation.
import {Client, type ElicitRequest, type ElicitResult} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {BIN} from '../helpers/serve.js'
import {testDependency} from '../helpers/test-deps.js'

interface ToolCall {
  tool: string
  ok: boolean
  error?: string
  approval?: 'approved' | 'denied'
}

interface Execution {
  text: string
  isError: boolean
  calls: ToolCall[]
}

type ElicitParams = ElicitRequest['params']
type Answer = (params: ElicitParams) => ElicitResult | Promise<ElicitResult>

interface Session {
  root: string
  client: Client
  /** Every approval question the client received. */
  asked: ElicitParams[]
  /** Every sampling request the client received. */
  sampled: Array<{_meta?: Record<string, unknown>}>
  /** How the client answers the next questions. */
  answer: Answer
  /** The tools/call requests each fixture received, by server name, in order. */
  received(server: 'fx' | 'my-fx'): string[]
  execute(code: string): Promise<Execution>
  stderr(): string
  close(): Promise<void>
}

const APPROVAL_TIMEOUT_SECONDS = 6

const FILESYSTEM_SERVER = testDependency('@modelcontextprotocol/server-filesystem/dist/index.js')

/**
 * Claude Code settings in user scope (deny an exact name), project scope (ask for a whole server,
 * written with its dashes) and local project scope (allow a destructive tool).
 */
const SETTINGS = {
  user: {permissions: {deny: ['mcp__fx__env'], allow: ['Bash(npm test)']}},
  project: {permissions: {ask: ['mcp__my-fx']}},
  local: {permissions: {allow: ['mcp__fx__delete_item']}},
}

/** Tools that run without asking through ptc-mcp's own permissions.allow (the fixture declares no annotations for them). */
const PTC_ALLOW = ['mcp__fx__echo', 'mcp__fx__sample']

async function startSession(options: {
  elicitation: boolean
  settings?: typeof SETTINGS
  /** Claude Code's managed-settings.json (in a temporary directory ptc-mcp is pointed at). */
  managed?: unknown
  /** The servers to start instead of the two fixtures; the session waits for `ready` to be listed. */
  servers?: {name: string; command: string; args: string[]}[]
  ready?: string[]
  /** Negotiate the 2026-07-28 revision (no requests from server to client) instead of the 2025 handshake. */
  modern?: boolean
  /** permissions.approval_timeout_seconds (default APPROVAL_TIMEOUT_SECONDS). */
  approvalTimeoutSeconds?: number
}): Promise<Session> {
  const root = mkdtempSync(join(tmpdir(), 'ptc-approvals-'))
  const home = join(root, 'home')
  const project = join(root, 'project')
  const tmp = join(root, 'tmp')
  for (const dir of [join(home, '.claude'), join(project, '.claude'), tmp]) mkdirSync(dir, {recursive: true})
  const settings = options.settings ?? SETTINGS
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify(settings.user))
  writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify(settings.project))
  writeFileSync(join(project, '.claude', 'settings.local.json'), JSON.stringify(settings.local))
  const managed = join(root, 'managed')
  mkdirSync(managed)
  if (options.managed !== undefined)
    writeFileSync(join(managed, 'managed-settings.json'), JSON.stringify(options.managed))
  const counter = (name: string) => join(root, `${name}.calls`)
  const server = (name: string) => {
    const {command, args} = fixtureCommand(['--name', name, '--counter-file', counter(name)])
    return {name, command, args}
  }
  const configPath = join(root, 'config.yaml')
  writeFileSync(
    configPath,
    stringify({
      servers: options.servers ?? [server('fx'), server('my-fx')],
      permissions: {
        approval_timeout_seconds: options.approvalTimeoutSeconds ?? APPROVAL_TIMEOUT_SECONDS,
        allow: PTC_ALLOW,
      },
      execution: {timeout_seconds: 4, trace: 'full'},
    }),
  )

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--config', configPath],
    cwd: project,
    env: {
      ...(process.env as Record<string, string>),
      HOME: home,
      TMPDIR: tmp,
      PTC_MCP_LOG_LEVEL: 'info',
      PTC_MCP_CLAUDE_MANAGED_DIR: managed,
    },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const client = new Client(
    {name: 'approvals-test', version: '1.0.0'},
    {
      capabilities: options.elicitation ? {elicitation: {form: {}, url: {}}, sampling: {}} : {},
      ...(options.modern && {versionNegotiation: {mode: 'auto' as const}}),
    },
  )
  const session: Session = {
    root,
    client,
    asked: [],
    sampled: [],
    answer: () => ({action: 'decline'}),
    received: (name) =>
      existsSync(counter(name)) ? readFileSync(counter(name), 'utf8').split('\n').filter(Boolean) : [],
    async execute(code) {
      const result = (await client.callTool(
        {name: 'execute_program', arguments: {code}},
        {timeout: 120_000},
      )) as {
        content: Array<{text?: string}>
        isError?: boolean
        structuredContent?: {calls?: ToolCall[]}
      }
      return {
        text: result.content[0]?.text ?? '',
        isError: result.isError === true,
        calls: result.structuredContent?.calls ?? [],
      }
    },
    stderr: () => stderr,
    async close() {
      await client.close()
      rmSync(root, {recursive: true, force: true})
    },
  }
  if (options.elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      session.asked.push(request.params)
      return session.answer(request.params)
    })
    client.setRequestHandler('sampling/createMessage', async (request) => {
      session.sampled.push(request.params as {_meta?: Record<string, unknown>})
      return {model: 'test-model', role: 'assistant', content: {type: 'text', text: 'hi from the client'}}
    })
  }
  await client.connect(transport)
  // Both fixtures (started through tsx) can take a while on a loaded machine.
  const deadline = Date.now() + 60_000
  for (;;) {
    const listed = (await client.callTool({name: 'list_callable_tools', arguments: {}})) as {
      content: Array<{text: string}>
    }
    const names = listed.content[0]?.text ?? ''
    if ((options.ready ?? ['mcp__fx__add', 'mcp__my_fx__add']).every((name) => names.includes(name))) break
    if (Date.now() > deadline) throw new Error(`the fixtures never connected: ${names}\n${stderr}`)
  }
  return session
}

const accept =
  (decision: string): Answer =>
  () => ({action: 'accept', content: {decision}})

/** The question before the run (its choices offer `each`). */
const isPlan = (params: ElicitParams) =>
  JSON.stringify((params as {requestedSchema?: unknown}).requestedSchema).includes('"each"')

/** Answers the question before the run with "ask me at each call", then every other one with `decision`. */
const eachThen =
  (decision: string): Answer =>
  (params) => ({action: 'accept', content: {decision: isPlan(params) ? 'each' : decision}})

describe('approval by elicitation, with Claude Code rules in user and project scope', () => {
  let session: Session

  beforeAll(async () => {
    session = await startSession({elicitation: true})
  }, 90_000)
  afterAll(async () => {
    await session?.close()
  })

  it('a deny rule (user scope, exact name) hides the tool: not listed, not callable, never sent', async () => {
    const listed = (await session.client.callTool({name: 'list_callable_tools', arguments: {}})) as {
      content: Array<{text: string}>
    }
    const names = JSON.parse(listed.content[0]!.text) as string[]
    expect(names).not.toContain('mcp__fx__env')
    expect(names).toContain('mcp__my_fx__env')
    const run = await session.execute(
      'try:\n    await mcp__fx__env(name="HOME")\nexcept ToolError as e:\n    print("caught:", e)',
    )
    // Named as hidden, with its rule and file; no "did you mean" another tool of the server.
    expect(run.text).toMatch(
      /caught: Tool 'mcp__fx__env' is hidden by Claude Code's deny rule "mcp__fx__env" \(.*home\/\.claude\/settings\.json\): the user does not allow calls to it\./,
    )
    expect(run.text).not.toContain('Did you mean')
    expect(session.received('fx')).not.toContain('env')
  })

  it('inspect_tool (the MCP tool and the helper) says which tools ask the user first', async () => {
    const inspect = async (name: string) =>
      (
        (await session.client.callTool({name: 'inspect_tool', arguments: {tool_name: name}})) as {
          content: Array<{text: string}>
        }
      ).content[0]!.text
    const asks = JSON.parse(await inspect('mcp__my_fx__echo')) as {needs_approval?: string}
    expect(asks.needs_approval).toMatch(
      /^every call asks the user first \(Claude Code's ask rule "mcp__my-fx" \(.*\)\); a refusal raises ToolError \(kind "denied"\)$/,
    )
    expect(JSON.parse(await inspect('mcp__fx__echo'))).not.toHaveProperty('needs_approval')
    const run = await session.execute(
      'print((await inspect_tool(tool_name="mcp__my_fx__echo"))["needs_approval"])',
    )
    expect(run.text).toContain(asks.needs_approval)
  })

  it('allow once: each call is asked about, shows the tool and its arguments, and runs', async () => {
    session.asked.length = 0
    session.answer = eachThen('once')
    const run = await session.execute(
      'print(await mcp__my_fx__echo(text="one"))\nprint(await mcp__my_fx__echo(text="two"))',
    )
    expect(run.text).toContain('[Script executed successfully]\none\ntwo')
    // The question before the run ("ask me at each call"), then one per call.
    expect(session.asked).toHaveLength(3)
    expect(session.asked[0]!.message).toContain(
      '- mcp__my_fx__echo 2 times, e.g. mcp__my_fx__echo(text="one")',
    )
    const [, first] = session.asked
    expect(first).toMatchObject({mode: 'form'})
    expect(first!.message).toContain('mcp__my_fx__echo (tool "echo" of server "my-fx")')
    expect(first!.message).toContain('Arguments: {"text":"one"}')
    expect(first!.message).toContain(`Claude Code's ask rule "mcp__my-fx"`)
    expect(run.calls.map((call) => call.approval)).toEqual(['approved', 'approved'])
    expect(session.received('my-fx').filter((name) => name === 'echo')).toHaveLength(2)
    expect(session.stderr()).toMatch(/approval: mcp__my_fx__echo \{"text":"one"\} approved once/)
  })

  it('allow for the rest of the program: asked once, every call of that tool runs', async () => {
    session.asked.length = 0
    session.answer = accept('program')
    const before = session.received('my-fx').length
    const run = await session.execute(
      'import asyncio\nr = await asyncio.gather(*[mcp__my_fx__add(a=i, b=1) for i in range(3)])\nprint([x["sum"] for x in r])',
    )
    expect(run.text).toContain('[1, 2, 3]')
    expect(session.asked).toHaveLength(1)
    expect(run.calls.map((call) => call.approval)).toEqual(['approved', 'approved', 'approved'])
    expect(session.received('my-fx').length - before).toBe(3)
  })

  const declined = 'caught: denied: the user denied this call to mcp__my_fx__delete_item'
  // A cancelled question is not the user's no: nobody saw it (Claude Code's print mode cancels).
  const unanswered = 'caught: denied: nobody answered the approval question for mcp__my_fx__delete_item'
  for (const [label, answer, message] of [
    ['decline', () => ({action: 'decline'}), declined],
    ['cancel', () => ({action: 'cancel'}), unanswered],
    ['deny', accept('deny'), declined],
  ] as Array<[string, Answer, string]>) {
    it(`${label}: ToolError (denied), the program goes on, nothing reaches the server`, async () => {
      session.answer = answer
      const before = session.received('my-fx')
      const run = await session.execute(
        'try:\n    await mcp__my_fx__delete_item(id="a1")\nexcept ToolError as e:\n    print("caught:", e)\n    print("kind:", e.kind, e.tool)\nprint("after")',
      )
      expect(run.isError).toBe(false)
      expect(run.text).toContain('kind: denied mcp__my_fx__delete_item')
      expect(run.text).toContain(message)
      expect(run.text).toContain('after')
      expect(run.text).toContain('[tool calls: 1, 1 failed')
      expect(run.calls).toMatchObject([{tool: 'mcp__my_fx__delete_item', ok: false, approval: 'denied'}])
      expect(session.received('my-fx')).toEqual(before)
    })
  }

  it('an unannotated tool asks under the shipped defaults; permissions.allow exempts one; "this session" asks once across two programs', async () => {
    session.asked.length = 0
    session.answer = accept('session')
    const before = session.received('fx').filter((name) => name === 'add').length
    const first = await session.execute(
      'print((await mcp__fx__add(a=1, b=2))["sum"])\nprint(await mcp__fx__echo(text="free"))',
    )
    expect(first.text).toContain('[Script executed successfully]\n3\nfree')
    expect(session.asked.map((question) => question.message.split('\n')[0])).toEqual([
      'A program run by ptc-mcp wants to call mcp__fx__add (tool "add" of server "fx").',
    ])
    expect(session.asked[0]!.message).toContain('permissions.ask_unlisted')
    expect(JSON.stringify((session.asked[0] as {requestedSchema?: unknown}).requestedSchema)).toContain(
      '{"const":"session","title":"Allow mcp__fx__add for the rest of this session"}',
    )
    const second = await session.execute('print((await mcp__fx__add(a=2, b=2))["sum"])')
    expect(second.text).toContain('4')
    expect(second.calls).toMatchObject([{tool: 'mcp__fx__add', ok: true, approval: 'approved'}])
    expect(session.asked).toHaveLength(1)
    expect(session.received('fx').filter((name) => name === 'add').length - before).toBe(2)
    expect(session.stderr()).toMatch(
      /approval: mcp__fx__add \{"a":1,"b":2\} approved for the rest of the session/,
    )
  })

  it('an allow rule (local project scope) exempts a destructive tool; without one it is asked about', async () => {
    session.asked.length = 0
    session.answer = accept('once')
    const run = await session.execute('print(await mcp__fx__delete_item(id="x"))')
    expect(run.text).toContain('deleted x')
    expect(session.asked).toHaveLength(0)
    expect(run.calls[0]).not.toHaveProperty('approval')
  })

  it("the program's clock stops while the user decides", async () => {
    // execution.timeout_seconds is 4: the user takes 5 s, the program still finishes.
    session.answer = async () => {
      await new Promise((resolve) => {
        setTimeout(resolve, 5000)
      })
      return {action: 'accept', content: {decision: 'once'}}
    }
    const run = await session.execute('print(await mcp__my_fx__echo(text="late"))')
    expect(run.text).toContain('[Script executed successfully]\nlate')
  }, 30_000)

  it('a hostile program: huge arguments are shown shortened; 20 calls at once are asked about in one question, denied, never sent', async () => {
    session.asked.length = 0
    session.answer = eachThen('deny')
    const before = session.received('my-fx')
    const run = await session.execute(
      [
        'import asyncio',
        'r = await asyncio.gather(*[mcp__my_fx__echo(text=str(i) * 200_000) for i in range(20)], return_exceptions=True)',
        'print(sum(1 for x in r if isinstance(x, ToolError) and x.kind == "denied"))',
      ].join('\n'),
    )
    expect(run.text).toContain('[Script executed successfully]\n20')
    // The question before the run, then the calls waiting together, one round per 8 of them at
    // most (execution.max_concurrent_calls: a call waits for the user in its slot).
    expect(session.asked.length).toBeGreaterThanOrEqual(2)
    expect(session.asked.length).toBeLessThanOrEqual(1 + Math.ceil(20 / 8))
    for (const question of session.asked) expect(question.message.length).toBeLessThan(4000)
    const listed = session.asked.slice(1).map((question) => question.message)
    expect(listed.join('\n')).toMatch(/mcp__my_fx__echo \{"text":"0{50,}…0+"\}\n/)
    expect(session.received('my-fx')).toEqual(before)
  }, 60_000)

  it('a client that never answers: denied after approval_timeout_seconds, then at once for the rest of the program', async () => {
    session.asked.length = 0
    session.answer = () => new Promise<never>(() => {})
    const before = session.received('my-fx')
    const run = await session.execute(
      [
        'for i in range(2):',
        '    try:',
        '        await mcp__my_fx__echo(text=str(i))',
        '    except ToolError as e:',
        '        print("caught:", e)',
      ].join('\n'),
    )
    expect(run.text).toContain(
      `caught: denied: nobody answered the approval question within ${APPROVAL_TIMEOUT_SECONDS}s`,
    )
    expect(run.text.match(/caught: denied/g)).toHaveLength(2)
    expect(session.asked).toHaveLength(1)
    expect(run.calls.map((call) => call.approval)).toEqual(['denied', 'denied'])
    expect(session.received('my-fx')).toEqual(before)
  }, 60_000)

  it('a program that burns CPU while the question stops its clock dies of its CPU limit, named as such', async () => {
    // A question left open long enough for the 6 s of CPU to be burnt during it, however loaded
    // the machine (two threads on a machine shared with others may get a fraction of a core).
    const session = await startSession({elicitation: true, approvalTimeoutSeconds: 90})
    try {
      session.answer = () => new Promise<never>(() => {})
      // Two threads hashing (the GIL released) burn CPU faster than the clock runs; the question
      // stops the clock, not the CPU time.
      const run = await session.execute(
        [
          'import hashlib, threading',
          'block = bytes(1 << 24)',
          'def burn():',
          '    while True:',
          '        hashlib.sha256(block).digest()',
          'for _ in range(2):',
          '    threading.Thread(target=burn, daemon=True).start()',
          'try:',
          '    await mcp__my_fx__echo(text="x")',
          'except ToolError as e:',
          '    print("caught:", e)',
          'threading.Event().wait()',
        ].join('\n'),
      )
      expect(run.text, session.stderr().slice(-4000)).toMatch(
        /hit its CPU time limit \(6 s of CPU time: execution\.timeout_seconds \+ 2; CPU time counts on while an approval question stops the clock\)/,
      )
      expect(run.text, session.stderr().slice(-3000)).not.toContain('SIGKILL')
    } finally {
      await session.close()
    }
  }, 120_000)
})

describe.each([
  ['2025-11-25', false],
  ['2026-07-28', true],
])('elicitation and sampling requests of downstream servers, client of %s', (_era, modern) => {
  let session: Session

  beforeAll(async () => {
    session = await startSession({elicitation: true, modern})
  }, 90_000)
  afterAll(async () => {
    await session?.close()
  })

  it('reach a client that supports them, labelled with the server name, and the answer goes back', async () => {
    session.asked.length = 0
    session.answer = (params) =>
      params.mode === 'url' ? {action: 'accept'} : {action: 'accept', content: {name: 'Ada'}}
    const run = await session.execute(
      [
        'print(await mcp__fx__sample(kind="elicitation"))',
        'print(await mcp__fx__sample(kind="elicitation_url"))',
        'print(await mcp__fx__sample(kind="sampling"))',
      ].join('\n'),
    )
    expect(run.text).toContain('answered: {"action":"accept","content":{"name":"Ada"}}')
    expect(run.text).toContain('answered: {"action":"accept"}')
    expect(run.text).toContain('hi from the client')
    expect(session.asked).toMatchObject([
      {mode: 'form', message: '[fx] Your name?'},
      {mode: 'url', message: '[fx] Sign in to continue', url: 'https://example.com/sign-in'},
    ])
    expect(session.sampled).toHaveLength(1)
    // The 2026-07-28 client SDK drops an embedded request's _meta.
    if (!modern) expect(session.sampled).toMatchObject([{_meta: {'ptc-mcp/server': 'fx'}}])
  })

  it("a message made to pass for ptc-mcp's prompt shows its label on the first line; a copy of the approval form is refused", async () => {
    session.asked.length = 0
    session.answer = () => ({action: 'accept', content: {ok: true}})
    const run = await session.execute(
      [
        'print(await mcp__fx__sample(kind="elicitation_spoof_text"))',
        'print(await mcp__fx__sample(kind="elicitation_spoof_form"))',
      ].join('\n'),
    )
    expect(run.text).toContain('answered: {"action":"accept","content":{"ok":true}}')
    expect(run.text).toMatch(/refused: .*its form copies ptc-mcp's own approval form \(property "decision"\)/)
    expect(session.asked).toHaveLength(1)
    const [shown] = session.asked as unknown as [
      {message: string; requestedSchema: {properties: {ok: {title: string}}}},
    ]
    const lines = shown.message.split('\n')
    expect(lines[0]).toBe('[fx] Loading\\u{202e}')
    expect(lines[1]).toBe('')
    expect(lines[2]).toMatch(/^A program run by ptc-mcp wants to call/)
    expect(shown.requestedSchema.properties.ok.title).toBe('[fx] Continue?')
  })
})

describe('approval with a client that cannot be asked', () => {
  let session: Session

  beforeAll(async () => {
    session = await startSession({elicitation: false})
  }, 90_000)
  afterAll(async () => {
    await session?.close()
  })

  it('denies the call with a message saying how to allow it; the rest runs', async () => {
    const before = session.received('my-fx')
    const run = await session.execute(
      'try:\n    await mcp__my_fx__echo(text="x")\nexcept ToolError as e:\n    print("caught:", e)\n    print("kind:", e.kind)\nprint(await mcp__fx__echo(text="free"))',
    )
    expect(run.text).toContain('kind: denied')
    expect(run.text).toContain(
      `caught: denied: mcp__my_fx__echo needs the user's approval (Claude Code's ask rule "mcp__my-fx"`,
    )
    expect(run.text).toContain('this client cannot ask the user (it does not support MCP elicitation)')
    expect(run.text).toContain('replace the ask rule "mcp__my-fx" with an allow rule for mcp__my_fx__echo in')
    expect(run.text).toContain('free')
    expect(run.calls).toMatchObject([
      {tool: 'mcp__my_fx__echo', ok: false, approval: 'denied'},
      {tool: 'mcp__fx__echo', ok: true},
    ])
    expect(session.received('my-fx')).toEqual(before)
  })

  it("refuses downstream servers' elicitation and sampling requests cleanly", async () => {
    const run = await session.execute(
      'print(await mcp__fx__sample(kind="elicitation"))\nprint(await mcp__fx__sample(kind="sampling"))',
    )
    expect(run.text).toContain('refused: ptc-mcp does not support elicitation (elicitation/create) here')
    expect(run.text).toContain('refused: ptc-mcp does not support sampling (sampling/createMessage) here')
  })
})

describe('approval with a 2026-07-28 client (questions as input requests of the answer)', () => {
  let session: Session

  beforeAll(async () => {
    session = await startSession({elicitation: true, modern: true})
  }, 90_000)
  afterAll(async () => {
    await session?.close()
  })

  it('asks through input_required, and the same program resumes with the answer', async () => {
    session.asked.length = 0
    session.answer = accept('once')
    const run = await session.execute(
      'print("before")\nprint(await mcp__my_fx__echo(text="x"))\nprint("after")',
    )
    expect(run.isError, run.text).toBe(false)
    expect(run.text).toMatch(/^\[Script executed successfully\]\nbefore\n.*x.*\nafter$/m)
    expect(session.asked).toHaveLength(1)
    expect(session.asked[0]?.message).toContain('wants to call mcp__my_fx__echo')
    expect(session.received('my-fx').filter((name) => name === 'echo')).toHaveLength(1)
    expect(run.calls).toMatchObject([{tool: 'mcp__my_fx__echo', ok: true, approval: 'approved'}])
  })

  it('a declined question is the user’s no; a cancelled one says nobody answered and how to allow the call', async () => {
    const before = session.received('my-fx').length
    session.answer = () => ({action: 'decline'})
    const declined = await session.execute(
      'try:\n    await mcp__my_fx__echo(text="x")\nexcept ToolError as e:\n    print("caught:", e.kind, e)',
    )
    expect(declined.text).toContain('caught: denied')
    expect(declined.text).toContain('the user denied this call')
    session.answer = () => ({action: 'cancel'})
    const cancelled = await session.execute(
      'try:\n    await mcp__my_fx__echo(text="x")\nexcept ToolError as e:\n    print("caught:", e.kind, e)',
    )
    expect(cancelled.text).toContain('caught: denied')
    expect(cancelled.text).toContain('nobody answered')
    expect(cancelled.text).toContain('Elicitation hook')
    expect(cancelled.text).not.toContain('Do not retry')
    expect(session.received('my-fx')).toHaveLength(before)
  })
})

describe("Claude Code's wildcard rules and managed settings, on @modelcontextprotocol/server-filesystem", () => {
  let session: Session
  let files: string

  beforeAll(async () => {
    files = mkdtempSync(join(tmpdir(), 'ptc-approvals-fs-'))
    writeFileSync(join(files, 'a.txt'), 'alpha')
    session = await startSession({
      elicitation: true,
      settings: {
        user: {permissions: {deny: ['mcp__filesystem__write_*', 'mcp__*__move_file']}},
        project: {permissions: {ask: ['mcp__filesystem__create_*']}},
        local: {permissions: {allow: ['mcp__filesystem__list_*']}},
      } as unknown as typeof SETTINGS,
      managed: {permissions: {deny: ['mcp__filesystem__edit_file']}},
      servers: [{name: 'filesystem', command: process.execPath, args: [FILESYSTEM_SERVER, files]}],
      ready: ['mcp__filesystem__read_text_file'],
    })
  }, 90_000)
  afterAll(async () => {
    await session?.close()
    rmSync(files, {recursive: true, force: true})
  })

  it('the wildcard deny rules and the managed deny rule hide their tools; the wildcard ask rule asks', async () => {
    session.asked.length = 0
    session.answer = accept('once')
    const listed = (await session.client.callTool({name: 'list_callable_tools', arguments: {}})) as {
      content: Array<{text: string}>
    }
    const names = JSON.parse(listed.content[0]!.text) as string[]
    for (const hidden of ['write_file', 'move_file', 'edit_file'])
      expect(names).not.toContain(`mcp__filesystem__${hidden}`)
    const attempt = (call: string) => `try:\n    await ${call}\nexcept ToolError as e:\n    print(e.kind, e)`
    const run = await session.execute(
      [
        attempt(`mcp__filesystem__write_file(path=${JSON.stringify(join(files, 'b.txt'))}, content="x")`),
        attempt(
          `mcp__filesystem__move_file(source=${JSON.stringify(join(files, 'a.txt'))}, destination=${JSON.stringify(join(files, 'c.txt'))})`,
        ),
        attempt(`mcp__filesystem__edit_file(path=${JSON.stringify(join(files, 'a.txt'))}, edits=[])`),
        `print(await mcp__filesystem__create_directory(path=${JSON.stringify(join(files, 'new'))}))`,
        `print(await mcp__filesystem__read_text_file(path=${JSON.stringify(join(files, 'a.txt'))}))`,
      ].join('\n'),
    )
    expect(run.text).toMatch(
      /denied Tool 'mcp__filesystem__write_file' is hidden by Claude Code's deny rule "mcp__filesystem__write_\*" \(.*settings\.json\)/,
    )
    expect(run.text).toMatch(
      /denied Tool 'mcp__filesystem__move_file' is hidden by Claude Code's deny rule "mcp__\*__move_file"/,
    )
    expect(run.text).toMatch(
      /denied Tool 'mcp__filesystem__edit_file' is hidden by Claude Code's deny rule "mcp__filesystem__edit_file" \(.*managed\/managed-settings\.json\)/,
    )
    expect(run.text).not.toContain('Did you mean')
    // Nothing was written or moved; the directory was created after the one question.
    expect(existsSync(join(files, 'b.txt'))).toBe(false)
    expect(readFileSync(join(files, 'a.txt'), 'utf8')).toBe('alpha')
    expect(existsSync(join(files, 'new'))).toBe(true)
    expect(session.asked).toHaveLength(1)
    expect(session.asked[0]!.message).toContain(`Claude Code's ask rule "mcp__filesystem__create_*"`)
    // read_text_file declares readOnlyHint: true, so it runs without asking.
    expect(run.text).toContain('alpha')
  })
})
