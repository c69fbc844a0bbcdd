// @tier integration
// A 2026-07-28 client (raw JSON-RPC, as Claude Code sends it) answering approval questions through
// input_required: the requestState serve hands out is MAC'd with a key of that process, names one
// round of one program and its code, expires, and is good for one answer (SPEC §12). Anything else
// runs nothing.
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type Message, type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {programInterpreters} from '../helpers/processes.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const PROGRAM = 'print("start")\nprint(await mcp__fx__delete_item(id="a1"))\nprint("end")'
const ALLOW_ONCE = {action: 'accept', content: {decision: 'once'}}
const APPROVAL_TIMEOUT_SECONDS = 3

interface InputRequired {
  resultType: 'input_required'
  inputRequests: Record<string, {method: string; params: {message: string; requestedSchema: unknown}}>
  requestState: string
}

let setup: ServeSetup
let serve: RawServe
let counterFile: string

const deletes = () =>
  existsSync(counterFile)
    ? readFileSync(counterFile, 'utf8')
        .split('\n')
        .filter((n) => n === 'delete_item')
    : []

function call(target: RawServe, code: string, extra: Record<string, unknown> = {}): Promise<Message> {
  return target.request('tools/call', {name: 'execute_program', arguments: {code}, ...extra}, 60_000)
}

function asked(response: Message): InputRequired {
  const result = response.result as InputRequired
  expect(result, JSON.stringify(response)).toMatchObject({resultType: 'input_required'})
  return result
}

function refusal(response: Message): string {
  const result = response.result as {isError?: boolean; content: Array<{text: string}>}
  expect(result.isError, JSON.stringify(response)).toBe(true)
  return result.content[0]!.text
}

let counterDir: string

beforeAll(async () => {
  counterDir = mkdtempSync(join(tmpdir(), 'ptc-request-state-'))
  counterFile = join(counterDir, 'fx.calls')
  const {command, args} = fixtureCommand(['--name', 'fx', '--counter-file', counterFile])
  setup = prepareServe({
    servers: [{name: 'fx', command, args}],
    permissions: {
      claude_code: false,
      ask_unlisted: 'destructive',
      approval_timeout_seconds: APPROVAL_TIMEOUT_SECONDS,
    },
    execution: {timeout_seconds: 20, warm_pool: 0},
  })
  serve = await startRawServe(setup, {modern: true})
}, 60_000)

afterAll(async () => {
  await serve?.kill()
  setup?.cleanup()
  rmSync(counterDir, {recursive: true, force: true})
})

describe('approvals of a 2026-07-28 client, through requestState', () => {
  it('asks with the approval form, resumes the same program with the answer, and a replay runs nothing', async () => {
    const first = asked(await call(serve, PROGRAM))
    const [key, request] = Object.entries(first.inputRequests)[0]!
    expect(request.method).toBe('elicitation/create')
    expect(request.params.message).toContain('wants to call mcp__fx__delete_item')
    expect(deletes()).toHaveLength(0)

    const done = await call(serve, PROGRAM, {
      inputResponses: {[key]: ALLOW_ONCE},
      requestState: first.requestState,
    })
    const result = done.result as {content: Array<{text: string}>; structuredContent: {output: string}}
    expect(result.structuredContent.output).toBe('start\ndeleted a1\nend\n')
    expect(deletes()).toHaveLength(1)

    const replayed = refusal(
      await call(serve, PROGRAM, {inputResponses: {[key]: ALLOW_ONCE}, requestState: first.requestState}),
    )
    expect(replayed).toContain('already answered')
    expect(replayed).toContain('nothing ran')
    expect(deletes()).toHaveLength(1)
  })

  it('a forged state, another program’s code, or another process’s state runs nothing', async () => {
    const other = await startRawServe(setup, {modern: true})
    let foreign: InputRequired
    try {
      foreign = asked(await call(other, PROGRAM))
    } finally {
      await other.kill()
    }
    const first = asked(await call(serve, PROGRAM))
    const key = Object.keys(first.inputRequests)[0]!
    const answer = {inputResponses: {[key]: ALLOW_ONCE}}
    const [version, body, mac] = first.requestState.split('.')
    const forgedBody = Buffer.from(JSON.stringify({p: {run: 'x', round: 0, code: 'y'}, exp: 9e9})).toString(
      'base64url',
    )
    const forgeries = [
      `${version}.${forgedBody}.${mac}`,
      `${version}.${body}.${mac!.slice(0, -2)}AA`,
      'garbage',
    ]
    for (const forged of [...forgeries, foreign.requestState]) {
      expect(refusal(await call(serve, PROGRAM, {...answer, requestState: forged}))).toContain(
        'was not issued by this ptc-mcp process',
      )
    }
    expect(
      refusal(await call(serve, 'print("other")', {...answer, requestState: first.requestState})),
    ).toContain('belongs to another program')
    expect(deletes()).toHaveLength(1)
    // The real state still works once: the refusals took nothing from it.
    const done = await call(serve, PROGRAM, {...answer, requestState: first.requestState})
    expect((done.result as {structuredContent: {output: string}}).structuredContent.output).toContain(
      'deleted a1',
    )
    expect(deletes()).toHaveLength(2)
  })

  it('a question never answered ends its program at approval_timeout_seconds, and its state expires', async () => {
    const first = asked(await call(serve, PROGRAM))
    const key = Object.keys(first.inputRequests)[0]!
    expect(programInterpreters(serve.child.pid!).length).toBeGreaterThan(0)
    await expect.poll(() => programInterpreters(serve.child.pid!).length === 0, {timeout: 20_000}).toBe(true)
    await new Promise((resolve) => {
      setTimeout(resolve, 1100)
    })
    const late = refusal(
      await call(serve, PROGRAM, {inputResponses: {[key]: ALLOW_ONCE}, requestState: first.requestState}),
    )
    expect(late).toMatch(/expired|already answered/)
    expect(late).toContain('nothing ran')
    expect(deletes()).toHaveLength(2)
  }, 40_000)
})
