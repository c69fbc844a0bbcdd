// @tier integration
// SPEC §12 "Few questions, never a lost program", through the built `ptc-mcp serve` with real SDK
// clients of both eras: a v2 client of 2026-07-28 answering input_required (bounded at 10 rounds,
// as Claude Code is) and a v1 client of 2025-11-25 answering elicitation/create. The fixture's
// delete_item (destructiveHint: true) stands for a write tool that asks; the fixture counts the calls
// it receives.
import {Client as ClientV2} from '@modelcontextprotocol/client'
import {StdioClientTransport as StdioV2} from '@modelcontextprotocol/client/stdio'
import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport as StdioV1} from '@modelcontextprotocol/sdk/client/stdio.js'
import {ElicitRequestSchema} from '@modelcontextprotocol/sdk/types.js'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

/** What a question asked, and the answer the client gives it. */
interface Question {
  message: string
  choices: string[]
}

interface Era {
  /** Runs a program; the client answers every question with `decide`. */
  execute(
    code: string,
  ): Promise<{text: string; isError: boolean; calls: Array<{approval?: string; ok: boolean}>}>
  questions: Question[]
  decide: (question: Question) => string
  close(): Promise<void>
}

const WRITES = 24
/** The program of the issue: 24 writes with one tool, the tool called by its name in a loop. */
const LOOP = [
  `for i in range(${WRITES}):`,
  '    print(await mcp__fx__delete_item(id=f"out/{i}.txt"))',
  'print("wrote all")',
].join('\n')

/** The same writes through a name the program binds itself: the preflight check cannot see them. */
const HIDDEN = [
  'write = mcp__fx__delete_item',
  'done, denied = [], []',
  `for i in range(${WRITES}):`,
  '    try:',
  '        await write(id=f"out/{i}.txt")',
  '        done.append(i)',
  '    except ToolError as e:',
  '        denied.append(i)',
  '        last = str(e)',
  'print("written:", len(done), "denied:", len(denied))',
  'print(last)',
].join('\n')

let setup: ServeSetup
let dir: string
let counter: string

const writes = () =>
  existsSync(counter)
    ? readFileSync(counter, 'utf8')
        .split('\n')
        .filter((name) => name === 'delete_item').length
    : 0

function choicesOf(schema: unknown): string[] {
  const decision = (schema as {properties?: {decision?: {oneOf?: Array<{const: string}>}}}).properties
    ?.decision
  return decision?.oneOf?.map((choice) => choice.const) ?? []
}

type CallResult = {
  content: Array<{type: string; text?: string}>
  isError?: boolean
  structuredContent?: {calls?: Array<{approval?: string; ok: boolean}>}
}

function outcome(result: CallResult) {
  return {
    text: result.content.find((item) => item.type === 'text')?.text ?? '',
    isError: result.isError === true,
    calls: result.structuredContent?.calls ?? [],
  }
}

async function modernClient(): Promise<Era> {
  const transport = new StdioV2({command: process.execPath, args: setup.args, env: setup.env, stderr: 'pipe'})
  const client = new ClientV2(
    {name: 'rounds-v2', version: '1.0.0'},
    {
      capabilities: {elicitation: {form: {}}},
      versionNegotiation: {mode: 'auto'},
      // Claude Code's bound: a call still asking after 10 rounds is ended.
      inputRequired: {maxRounds: 10},
    },
  )
  const era: Era = {
    questions: [],
    decide: () => 'once',
    async execute(code) {
      const result = await client.callTool({name: 'execute_program', arguments: {code}}, {timeout: 120_000})
      return outcome(result as CallResult)
    },
    close: () => client.close(),
  }
  client.setRequestHandler('elicitation/create', async (request) => {
    const {params} = request
    const question = {
      message: params.message,
      choices: choicesOf('requestedSchema' in params ? params.requestedSchema : undefined),
    }
    era.questions.push(question)
    return {action: 'accept', content: {decision: era.decide(question)}}
  })
  await client.connect(transport)
  // A request of the 2026-07-28 revision first: the client negotiates it on its first call.
  await client.listTools()
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
  return era
}

async function legacyClient(): Promise<Era> {
  const transport = new StdioV1({command: process.execPath, args: setup.args, env: setup.env, stderr: 'pipe'})
  const client = new ClientV1({name: 'rounds-v1', version: '1.0.0'}, {capabilities: {elicitation: {}}})
  const era: Era = {
    questions: [],
    decide: () => 'once',
    async execute(code) {
      const result = await client.callTool({name: 'execute_program', arguments: {code}}, undefined, {
        timeout: 120_000,
      })
      return outcome(result as CallResult)
    },
    close: () => client.close(),
  }
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as {message: string; requestedSchema?: unknown}
    const question = {message: params.message, choices: choicesOf(params.requestedSchema)}
    era.questions.push(question)
    return {action: 'accept', content: {decision: era.decide(question)}}
  })
  await client.connect(transport)
  return era
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-rounds-'))
  counter = join(dir, 'fx.calls')
  const {command, args} = fixtureCommand(['--name', 'fx', '--counter-file', counter])
  setup = prepareServe({
    servers: [{name: 'fx', command, args}],
    // delete_item declares destructiveHint: true, so it asks; the default bound of 8 rounds.
    permissions: {claude_code: false, ask_unlisted: 'destructive', approval_timeout_seconds: 30},
    execution: {timeout_seconds: 30, trace: 'full', warm_pool: 1},
  })
})

afterAll(() => {
  setup?.cleanup()
  rmSync(dir, {recursive: true, force: true})
})

describe.each([
  ['2026-07-28 (v2 client answering input_required)', modernClient],
  ['2025-11-25 (v1 client answering elicitation/create)', legacyClient],
])('few questions, never a lost program: %s', (_era, connect) => {
  let era: Era

  beforeAll(async () => {
    era = await connect()
  }, 90_000)
  afterAll(async () => {
    await era?.close()
  })

  it('24 writes in a loop: one question before the run covers them all, and all are written', async () => {
    era.questions.length = 0
    era.decide = () => 'once'
    const before = writes()
    const run = await era.execute(LOOP)
    expect(run.text).toContain('[Script executed successfully]')
    expect(run.text).toContain('wrote all')
    expect(writes() - before).toBe(WRITES)
    expect(era.questions.length).toBeLessThanOrEqual(2)
    expect(era.questions[0]!.message).toContain('mcp__fx__delete_item 24 times')
    expect(era.questions[0]!.message).toContain('e.g. mcp__fx__delete_item(id=f"out/{i}.txt")')
    expect(era.questions[0]!.choices).toEqual(['once', 'program', 'each', 'session', 'deny'])
    expect(run.calls.map((call) => call.approval)).toEqual(Array.from({length: WRITES}, () => 'approved'))
  }, 120_000)

  it('24 writes started together, unseen by the check: asked in few rounds, all written', async () => {
    era.questions.length = 0
    era.decide = () => 'once'
    const before = writes()
    const run = await era.execute(
      [
        'write = mcp__fx__delete_item',
        `r = await asyncio.gather(*[write(id=f"out/{i}.txt") for i in range(${WRITES})])`,
        'print(len(r))',
      ].join('\n'),
    )
    expect(run.text).toContain(`[Script executed successfully]\n${WRITES}`)
    expect(writes() - before).toBe(WRITES)
    // The calls waiting together share a round (8 at a time: execution.max_concurrent_calls).
    expect(era.questions.length).toBeLessThanOrEqual(Math.ceil(WRITES / 8))
    expect(era.questions[0]!.message).toMatch(/wants to make \d+ calls that need your approval/)
    expect(era.questions[0]!.choices).toContain('program')
  }, 120_000)

  it('"allow this tool for the rest of this program" on the first question: asked once', async () => {
    era.questions.length = 0
    era.decide = () => 'program'
    const before = writes()
    const run = await era.execute(HIDDEN)
    expect(run.text).toContain(`written: ${WRITES} denied: 0`)
    expect(writes() - before).toBe(WRITES)
    expect(era.questions).toHaveLength(1)
  }, 120_000)

  it('a program needing more rounds than the cap ends with its output, and the trace names the calls run and denied', async () => {
    era.questions.length = 0
    era.decide = () => 'once'
    const before = writes()
    const run = await era.execute(HIDDEN)
    // permissions.max_question_rounds (8): 8 questions, 8 writes, the other 16 denied without one.
    expect(era.questions).toHaveLength(8)
    expect(writes() - before).toBe(8)
    expect(run.isError).toBe(false)
    expect(run.text).toContain('[Script executed successfully]\nwritten: 8 denied: 16')
    expect(run.text).toContain(
      'denied: this program already asked the user 8 questions (permissions.max_question_rounds)',
    )
    expect(run.text).toContain('permissions.allow')
    expect(run.text).toContain('[tool calls: 24, 16 failed')
    // The program printed the denial; the trace names each denied call without saying it again.
    expect(run.text).toContain('  failed: mcp__fx__delete_item {"id":"out/8.txt"} (error above)')
    expect(run.text).toContain('  ... 11 more failures')
    expect(run.calls.filter((call) => call.approval === 'approved' && call.ok)).toHaveLength(8)
    expect(run.calls.filter((call) => call.approval === 'denied' && !call.ok)).toHaveLength(16)
  }, 120_000)
})
