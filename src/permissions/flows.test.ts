// @tier unit
import {afterEach, describe, expect, it} from 'vitest'

import type {ToolInfo} from '../downstream/types.js'

import {flowsSchema, permissionsSchema} from '../config/schema.js'
import {ToolError} from '../downstream/types.js'
import {silentLogger} from '../shared/log.js'
import {type ApprovalChoice, type ApprovalRequest} from './approvals.js'
import {flowDecision, FlowMark, FlowRules, withFlowRules} from './flows.js'
import {PermissionPolicy} from './policy.js'
import {ProgramApprovals} from './program-approvals.js'

const tool = (name: string, annotations?: ToolInfo['annotations']): ToolInfo => ({
  name,
  server: name.split('__')[1]!,
  tool: name.split('__')[2]!,
  description: '',
  inputSchema: {type: 'object'},
  ...(annotations && {annotations}),
})

const SECRET = tool('mcp__vault__read_secret', {readOnlyHint: true})
const POST = tool('mcp__web__post', {openWorldHint: true})
const SEND = tool('mcp__mail__send')
const rules = (config: Record<string, unknown> = {}) =>
  new FlowRules(flowsSchema.parse({private: ['mcp__vault__*'], ...config}))

describe('flowDecision', () => {
  it('a program that read nothing private is not decided by the rules', () => {
    expect(flowDecision(rules(), undefined, POST)).toBeUndefined()
  })

  it('after a private read, an openWorldHint tool asks, naming the source and why the sink is one', () => {
    expect(flowDecision(rules(), {tool: SECRET.name}, POST)).toEqual({
      source: 'flow',
      read: {tool: 'mcp__vault__read_secret'},
      sink: 'mcp__web__post',
      sinkRule: 'it declares openWorldHint: true',
      action: 'ask',
    })
  })

  it('flows.external names sinks (normalised as tool patterns are); other tools are not sinks', () => {
    const external = rules({external: ['mcp__mail__send-*', 'mcp__mail__send'], action: 'deny'})
    expect(flowDecision(external, {tool: SECRET.name}, SEND)).toMatchObject({
      sinkRule: 'flows.external "mcp__mail__send"',
      action: 'deny',
    })
    expect(flowDecision(external, {tool: SECRET.name}, tool('mcp__mail__send_later'))).toMatchObject({
      sinkRule: 'flows.external "mcp__mail__send-*"',
    })
    expect(flowDecision(external, {tool: SECRET.name}, tool('mcp__mail__search'))).toBeUndefined()
  })

  it('trust_open_world: an openWorldHint tool is a sink only when external names it', () => {
    expect(flowDecision(rules({trust_open_world: true}), {tool: SECRET.name}, POST)).toBeUndefined()
    expect(
      flowDecision(rules({trust_open_world: true, external: ['mcp__web__*']}), {tool: SECRET.name}, POST),
    ).toMatchObject({sinkRule: 'flows.external "mcp__web__*"'})
  })
})

describe('FlowMark', () => {
  it('is marked by the first private source that answered, and says how data reached it', () => {
    const mark = new FlowMark(rules())
    mark.received('mcp__web__get')
    expect(mark.read).toBeUndefined()
    mark.received('mcp__vault__read_secret')
    mark.received('mcp__vault__list')
    expect(mark.read).toEqual({tool: 'mcp__vault__read_secret'})
    const loaded = new FlowMark(rules())
    loaded.reached(undefined, 'load("a")')
    expect(loaded.read).toBeUndefined()
    loaded.reached({tool: 'mcp__vault__read_secret', via: 'older'}, 'load("a")')
    expect(loaded.read).toEqual({tool: 'mcp__vault__read_secret', via: 'load("a")'})
  })

  it('without rules, nothing marks a program', () => {
    const mark = new FlowMark()
    mark.received('mcp__vault__read_secret')
    expect(mark.read).toBeUndefined()
    expect(mark.check(POST)).toBeUndefined()
  })
})

describe('the flow gate in front of the approvals', () => {
  const policies: PermissionPolicy[] = []
  afterEach(() => {
    for (const policy of policies.splice(0)) policy.close()
  })

  /** A gate whose permission rules allow every call: only the flow rule can ask. */
  function gate(action: 'ask' | 'deny', answer?: ApprovalChoice) {
    const policy = new PermissionPolicy(
      permissionsSchema.parse({claude_code: false, allow: ['mcp__*'], approval_timeout_seconds: 5}),
      {home: '/nonexistent', projectDir: '/nonexistent', logger: silentLogger, watchIntervalMs: 0},
    )
    policies.push(policy)
    const asked: ApprovalRequest[] = []
    const approvals = new ProgramApprovals({
      policy,
      prompter: answer && {
        unavailable(): undefined {},
        async ask(question) {
          if (question.kind === 'calls') asked.push(...question.calls)
          return answer
        },
      },
      clock: {pause() {}, resume() {}},
      logger: silentLogger,
    })
    const mark = new FlowMark(rules({action}))
    const check = withFlowRules(mark, silentLogger, (t, args, signal, flow) =>
      approvals.check(t, args, signal, flow),
    )
    const call = (t: ToolInfo) => check(t, {body: 'x'}, new AbortController().signal)
    return {mark, asked, call}
  }

  it('a sink before any private read runs under the usual rules; after one, it asks once per choice', async () => {
    const {mark, asked, call} = gate('ask', 'program')
    expect(await call(POST)).toBeUndefined()
    mark.received(SECRET.name)
    expect(await call(POST)).toBe('approved')
    expect(await call(POST)).toBe('approved')
    expect(asked).toHaveLength(1)
    expect(asked[0]!.why).toBe(
      'data-flow rule: this program read mcp__vault__read_secret, a private source (flows.private), and now calls mcp__web__post, which reaches outside (it declares openWorldHint: true)',
    )
    expect(mark.records).toEqual([
      {source: 'mcp__vault__read_secret', sink: 'mcp__web__post', decision: 'approved'},
      {source: 'mcp__vault__read_secret', sink: 'mcp__web__post', decision: 'approved'},
    ])
  })

  it('nobody to ask: denied, saying how to let the sink run', async () => {
    const {mark, call} = gate('ask')
    mark.received(SECRET.name)
    const error = await call(POST).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(ToolError)
    expect((error as ToolError).kind).toBe('denied')
    expect((error as ToolError).message).toContain('set flows.trust_open_world: true')
    expect(mark.records).toEqual([
      {source: 'mcp__vault__read_secret', sink: 'mcp__web__post', decision: 'denied'},
    ])
  })

  it('action deny: refused without asking, even by a prompter that approves everything', async () => {
    const {mark, asked, call} = gate('deny', 'session')
    mark.received(SECRET.name)
    await expect(call(POST)).rejects.toThrow(/flows\.action is deny, so the call was not made/)
    expect(asked).toEqual([])
    // A tool that is no sink still runs.
    expect(await call(SEND)).toBeUndefined()
  })
})
