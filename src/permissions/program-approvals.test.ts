// @tier unit
import {afterEach, describe, expect, it} from 'vitest'

import type {ToolInfo} from '../downstream/types.js'

import {permissionsSchema} from '../config/schema.js'
import {ToolError} from '../downstream/types.js'
import {silentLogger} from '../shared/log.js'
import {type ApprovalAnswer, type ApprovalPrompter, type ApprovalQuestion} from './approvals.js'
import {PermissionPolicy} from './policy.js'
import {ProgramApprovals} from './program-approvals.js'

const tool = (name: string): ToolInfo => ({
  name: `mcp__fx__${name}`,
  server: 'fx',
  tool: name,
  description: '',
  inputSchema: {type: 'object'},
})

const policies: PermissionPolicy[] = []
afterEach(() => {
  for (const policy of policies.splice(0)) policy.close()
})

function policy(timeoutSeconds = 5, maxRounds = 8): PermissionPolicy {
  const created = new PermissionPolicy(
    permissionsSchema.parse({
      claude_code: false,
      ask: ['mcp__fx__ask_*'],
      // Only the ask patterns ask here: the default (asking for unannotated tools) is the policy's test.
      ask_unlisted: false,
      approval_timeout_seconds: timeoutSeconds,
      max_question_rounds: maxRounds,
    }),
    {home: '/nonexistent', projectDir: '/nonexistent', logger: silentLogger, watchIntervalMs: 0},
  )
  policies.push(created)
  return created
}

/** A prompter whose questions the test answers one by one; it records each question and how many were open at once. */
class ScriptedPrompter implements ApprovalPrompter {
  open = 0
  maxOpen = 0
  questions: ApprovalQuestion[] = []
  /** Answers given at once, in order, before the test answers by hand. */
  constructor(
    private readonly automatic: ApprovalAnswer[] = [],
    readonly uncapped = false,
  ) {}

  private readonly waiting: Array<(choice: ApprovalAnswer) => void> = []
  private readonly listeners: Array<() => void> = []

  unavailable(): undefined {}

  /** Each question as the tools of its calls, e.g. `calls:ask_a,ask_a`. */
  get asked(): string[] {
    return this.questions.map(
      (question) => `${question.kind}:${question.calls.map((call) => call.tool.tool).join(',')}`,
    )
  }

  ask(question: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.questions.push(question)
    for (const listener of this.listeners.splice(0)) listener()
    const automatic = this.automatic.shift()
    if (automatic) return Promise.resolve(automatic)
    this.open++
    this.maxOpen = Math.max(this.maxOpen, this.open)
    return new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('aborted')), {once: true})
      this.waiting.push((choice) => {
        this.open--
        resolve(choice)
      })
    })
  }

  /** Resolves once `count` questions have been asked in total. */
  async askedCount(count: number): Promise<void> {
    while (this.questions.length < count) {
      await new Promise<void>((resolve) => {
        this.listeners.push(resolve)
      })
    }
  }

  answer(choice: ApprovalAnswer): void {
    this.waiting.shift()!(choice)
  }
}

function clock() {
  const state = {pauses: 0, resumes: 0}
  return {state, clock: {pause: () => state.pauses++, resume: () => state.resumes++}}
}

const signal = () => new AbortController().signal

function approvalsWith(prompter: ApprovalPrompter, shared = policy(), programClock = clock().clock) {
  return new ProgramApprovals({policy: shared, prompter, clock: programClock, logger: silentLogger})
}

/** Settles every check and reports each as `approved` or its error's message. */
async function outcomes(checks: Array<Promise<unknown>>): Promise<string[]> {
  const settled = await Promise.allSettled(checks)
  return settled.map((result) =>
    result.status === 'fulfilled' ? String(result.value) : (result.reason as Error).message,
  )
}

describe('ProgramApprovals', () => {
  it('lets a call that needs no approval through without asking or stopping the clock', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = approvalsWith(prompter, policy(), programClock)
    expect(await approvals.check(tool('free'), {}, signal())).toBeUndefined()
    expect(prompter.asked).toEqual([])
    expect(state).toEqual({pauses: 0, resumes: 0})
  })

  it('"for the rest of this session" asks once across two programs, for that tool only', async () => {
    const prompter = new ScriptedPrompter(['session', 'once'])
    const shared = policy()
    expect(await approvalsWith(prompter, shared).check(tool('ask_write'), {}, signal())).toBe('approved')
    expect(await approvalsWith(prompter, shared).check(tool('ask_write'), {}, signal())).toBe('approved')
    expect(await approvalsWith(prompter, shared).check(tool('ask_move'), {}, signal())).toBe('approved')
    expect(prompter.asked).toEqual(['calls:ask_write', 'calls:ask_move'])
  })

  it('calls that need asking at the same time share one question', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = approvalsWith(prompter, policy(), programClock)
    const calls = [1, 2, 3].map((n) => approvals.check(tool('ask_a'), {n}, signal()))
    const other = approvals.check(tool('ask_b'), {}, signal())
    await prompter.askedCount(1)
    expect(prompter.asked).toEqual(['calls:ask_a,ask_a,ask_a,ask_b'])
    prompter.answer('once')
    expect(await outcomes([...calls, other])).toEqual(['approved', 'approved', 'approved', 'approved'])
    expect(approvals.roundsAsked).toBe(1)
    expect(state.pauses).toBe(4)
    expect(state.resumes).toBe(4)
  })

  it('calls that come while a question is open wait, and the next round asks them all at once', async () => {
    const prompter = new ScriptedPrompter()
    const approvals = approvalsWith(prompter)
    const first = approvals.check(tool('ask_a'), {}, signal())
    await prompter.askedCount(1)
    const later = [1, 2, 3, 4, 5].map((n) => approvals.check(tool('ask_b'), {n}, signal()))
    const more = approvals.check(tool('ask_a'), {n: 6}, signal())
    // "For the rest of this program" lets the waiting ask_a call through unasked.
    prompter.answer('program')
    await prompter.askedCount(2)
    expect(prompter.asked).toEqual(['calls:ask_a', 'calls:ask_b,ask_b,ask_b,ask_b,ask_b'])
    prompter.answer('deny')
    const results = await outcomes([first, more, ...later])
    expect(results.slice(0, 2)).toEqual(['approved', 'approved'])
    for (const denied of results.slice(2)) expect(denied).toMatch(/^denied: the user denied this call/)
    expect(prompter.maxOpen).toBe(1)
  })

  it('the plan: "allow these" covers the calls it counted, and a call beyond them asks', async () => {
    const prompter = new ScriptedPrompter(['once'])
    const approvals = approvalsWith(prompter)
    await approvals.plan([{tool: tool('ask_a'), times: 3, samples: ['mcp__fx__ask_a(n=1)']}], signal())
    expect(prompter.questions[0]).toMatchObject({
      kind: 'plan',
      calls: [{times: 3, samples: ['mcp__fx__ask_a(n=1)']}],
    })
    const three = [1, 2, 3].map((n) => approvals.check(tool('ask_a'), {n}, signal()))
    expect(await outcomes(three)).toEqual(['approved', 'approved', 'approved'])
    const fourth = approvals.check(tool('ask_a'), {n: 4}, signal())
    await prompter.askedCount(2)
    prompter.answer('deny')
    await expect(fourth).rejects.toMatchObject({kind: 'denied'})
    expect(prompter.asked).toEqual(['plan:ask_a', 'calls:ask_a'])
  })

  it('the plan: calls in a loop ("many") are all allowed by one answer; tools needing no approval are left out', async () => {
    const prompter = new ScriptedPrompter(['once'])
    const approvals = approvalsWith(prompter)
    await approvals.plan(
      [
        {tool: tool('ask_w'), times: 'many', samples: []},
        {tool: tool('free'), times: 'many', samples: []},
      ],
      signal(),
    )
    const calls = Array.from({length: 24}, (_, n) => approvals.check(tool('ask_w'), {n}, signal()))
    expect(new Set(await outcomes(calls))).toEqual(new Set(['approved']))
    expect(prompter.asked).toEqual(['plan:ask_w'])
    expect(approvals.roundsAsked).toBe(1)
  })

  it('calls made while the plan is with the user wait for its answer', async () => {
    const prompter = new ScriptedPrompter()
    const approvals = approvalsWith(prompter)
    const planned = approvals.plan([{tool: tool('ask_w'), times: 'many', samples: []}], signal())
    await prompter.askedCount(1)
    const calls = [1, 2].map((n) => approvals.check(tool('ask_w'), {n}, signal()))
    prompter.answer('once')
    await planned
    expect(await outcomes(calls)).toEqual(['approved', 'approved'])
    expect(prompter.asked).toEqual(['plan:ask_w'])
  })

  it('the plan: "ask me at each call" asks at run time; "deny" denies without asking', async () => {
    const each = new ScriptedPrompter(['each', 'once'])
    const asking = approvalsWith(each)
    await asking.plan([{tool: tool('ask_w'), times: 2, samples: []}], signal())
    expect(await asking.check(tool('ask_w'), {}, signal())).toBe('approved')
    expect(each.asked).toEqual(['plan:ask_w', 'calls:ask_w'])

    const deny = new ScriptedPrompter(['deny'])
    const denying = approvalsWith(deny)
    await denying.plan([{tool: tool('ask_w'), times: 2, samples: []}], signal())
    await expect(denying.check(tool('ask_w'), {}, signal())).rejects.toThrow(
      'denied: the user denied this call to mcp__fx__ask_w',
    )
    expect(deny.asked).toEqual(['plan:ask_w'])
  })

  it('the plan unanswered (print mode, no hook): its calls are denied with the ways to allow them, unasked', async () => {
    const prompter = new ScriptedPrompter(['unanswered'])
    const approvals = approvalsWith(prompter)
    await approvals.plan([{tool: tool('ask_w'), times: 'many', samples: []}], signal())
    await expect(approvals.check(tool('ask_w'), {}, signal())).rejects.toThrow(
      /nobody answered the approval question for mcp__fx__ask_w[\s\S]*Elicitation hook/,
    )
    expect(prompter.asked).toEqual(['plan:ask_w'])
  })

  it('the plan: "for the rest of this session" lets later programs call the tools unasked', async () => {
    const prompter = new ScriptedPrompter(['session'])
    const shared = policy()
    await approvalsWith(prompter, shared).plan([{tool: tool('ask_w'), times: 2, samples: []}], signal())
    expect(await approvalsWith(prompter, shared).check(tool('ask_w'), {}, signal())).toBe('approved')
    expect(prompter.asked).toEqual(['plan:ask_w'])
  })

  it('one call in the text is asked when it is made: a question before the run would save none', async () => {
    const prompter = new ScriptedPrompter(['once'])
    const approvals = approvalsWith(prompter)
    await approvals.plan([{tool: tool('ask_w'), times: 1, samples: []}], signal())
    expect(prompter.questions).toHaveLength(0)
    expect(await approvals.check(tool('ask_w'), {a: 1}, signal())).toBe('approved')
    expect(prompter.asked).toEqual(['calls:ask_w'])
  })

  it('past max_question_rounds a call that would ask is denied, saying why and how to need fewer', async () => {
    const prompter = new ScriptedPrompter(['once', 'once'])
    const approvals = approvalsWith(prompter, policy(5, 2))
    expect(await approvals.check(tool('ask_a'), {}, signal())).toBe('approved')
    expect(await approvals.check(tool('ask_a'), {}, signal())).toBe('approved')
    const error = await approvals.check(tool('ask_a'), {}, signal()).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(ToolError)
    expect((error as ToolError).kind).toBe('denied')
    const {message} = error as ToolError
    expect(message).toMatch(
      /^denied: this program already asked the user 2 questions \(permissions\.max_question_rounds\)/,
    )
    expect(message).toContain(`remove "mcp__fx__ask_*" from permissions.ask`)
    expect(message).toContain('asyncio.gather')
    // Later calls are denied too, without a question; calls that need no approval still run.
    await expect(approvals.check(tool('ask_b'), {}, signal())).rejects.toThrow(
      /already asked the user 2 questions/,
    )
    expect(await approvals.check(tool('free'), {}, signal())).toBeUndefined()
    expect(prompter.questions).toHaveLength(2)
  })

  it("the rounds the client was asked through the prompter count too (a server's forwarded questions)", async () => {
    const prompter = new ScriptedPrompter(['once'])
    const counted = Object.assign(prompter, {roundsUsed: () => 3})
    const approvals = approvalsWith(counted, policy(5, 3))
    await expect(approvals.check(tool('ask_a'), {}, signal())).rejects.toThrow(
      /already asked the user 3 questions/,
    )
    expect(prompter.questions).toHaveLength(0)
  })

  it('a prompter no client bounds (the terminal) is not capped', async () => {
    const prompter = new ScriptedPrompter(['once', 'once', 'once'], true)
    const approvals = approvalsWith(prompter, policy(5, 1))
    for (let n = 0; n < 3; n++) expect(await approvals.check(tool('ask_a'), {n}, signal())).toBe('approved')
  })

  it('no answer in time: denied, and later calls are denied without asking', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = approvalsWith(prompter, policy(0.05), programClock)
    const error = await approvals.check(tool('ask_a'), {}, signal()).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(ToolError)
    expect((error as ToolError).message).toMatch(
      /^denied: nobody answered the approval question within 0\.05s/,
    )
    await expect(approvals.check(tool('ask_b'), {}, signal())).rejects.toMatchObject({kind: 'denied'})
    expect(prompter.asked).toEqual(['calls:ask_a'])
    expect(state.pauses).toBe(state.resumes)
  })

  it('a question nobody saw (the client cancelled it) denies with the ways to allow the call', async () => {
    const prompter = new ScriptedPrompter(['unanswered'])
    const approvals = approvalsWith(prompter)
    await expect(approvals.check(tool('ask_a'), {}, signal())).rejects.toThrow(
      /nobody answered the approval question for mcp__fx__ask_a[\s\S]*Elicitation hook/,
    )
    await expect(approvals.check(tool('ask_a'), {}, signal())).rejects.toMatchObject({kind: 'denied'})
    expect(prompter.questions).toHaveLength(1)
  })

  it('a timeout that is no whole number of milliseconds (0.0201 s) still bounds the question', async () => {
    const approvals = approvalsWith(new ScriptedPrompter(), policy(0.0201))
    await expect(approvals.check(tool('ask_a'), {}, signal())).rejects.toMatchObject({kind: 'denied'})
  })

  it('the end of the program ends the question', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = approvalsWith(prompter, policy(), programClock)
    const ended = new AbortController()
    const check = approvals.check(tool('ask_a'), {}, ended.signal)
    await prompter.askedCount(1)
    ended.abort()
    await expect(check).rejects.toThrow('denied: the program ended while the user was asked')
    expect(state.pauses).toBe(state.resumes)
  })

  it('nobody to ask: denied at once, with what to change', async () => {
    const approvals = new ProgramApprovals({policy: policy(), clock: clock().clock, logger: silentLogger})
    await expect(approvals.check(tool('ask_a'), {}, signal())).rejects.toThrow(
      `remove "mcp__fx__ask_*" from permissions.ask in ptc-mcp's config`,
    )
  })
})
