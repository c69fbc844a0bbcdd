import {afterEach, describe, expect, it} from 'vitest'

import type {ToolInfo} from '../downstream/types.js'

import {permissionsSchema} from '../config/schema.js'
import {ToolError} from '../downstream/types.js'
import {silentLogger} from '../shared/log.js'
import {
  type ApprovalChoice,
  type ApprovalPrompter,
  howToAllow,
  ProgramApprovals,
  shortJson,
} from './approvals.js'
import {PermissionPolicy} from './policy.js'

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

function policy(timeoutSeconds = 5): PermissionPolicy {
  const created = new PermissionPolicy(
    permissionsSchema.parse({
      claude_code: false,
      ask: ['mcp__fx__ask_*'],
      // Only the ask patterns ask here: the default (asking for unannotated tools) is the policy's test.
      ask_unlisted: false,
      approval_timeout_seconds: timeoutSeconds,
    }),
    {home: '/nonexistent', projectDir: '/nonexistent', logger: silentLogger, watchIntervalMs: 0},
  )
  policies.push(created)
  return created
}

/** A prompter whose questions the test answers one by one; it records how many were open at once. */
class ScriptedPrompter implements ApprovalPrompter {
  open = 0
  maxOpen = 0
  asked: string[] = []
  private readonly waiting: Array<(choice: ApprovalChoice) => void> = []
  private readonly listeners: Array<() => void> = []

  unavailable(): undefined {}

  ask(request: {tool: ToolInfo}, signal: AbortSignal): Promise<ApprovalChoice> {
    this.asked.push(request.tool.name)
    this.open++
    this.maxOpen = Math.max(this.maxOpen, this.open)
    for (const listener of this.listeners.splice(0)) listener()
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
    while (this.asked.length < count) {
      await new Promise<void>((resolve) => {
        this.listeners.push(resolve)
      })
    }
  }

  answer(choice: ApprovalChoice): void {
    this.waiting.shift()!(choice)
  }
}

function clock() {
  const state = {pauses: 0, resumes: 0}
  return {state, clock: {pause: () => state.pauses++, resume: () => state.resumes++}}
}

const signal = () => new AbortController().signal

describe('ProgramApprovals', () => {
  it('lets a call that needs no approval through without asking or stopping the clock', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = new ProgramApprovals({
      policy: policy(),
      prompter,
      clock: programClock,
      logger: silentLogger,
    })
    expect(await approvals.check(tool('free'), {}, signal())).toBeUndefined()
    expect(prompter.asked).toEqual([])
    expect(state).toEqual({pauses: 0, resumes: 0})
  })

  it('"for the rest of this session" asks once across two programs, for that tool only', async () => {
    const prompter = new ScriptedPrompter()
    const shared = policy()
    const program = () =>
      new ProgramApprovals({policy: shared, prompter, clock: clock().clock, logger: silentLogger})
    const first = program()
    const asked = first.check(tool('ask_write'), {}, signal())
    await prompter.askedCount(1)
    prompter.answer('session')
    expect(await asked).toBe('approved')
    expect(await program().check(tool('ask_write'), {}, signal())).toBe('approved')
    expect(prompter.asked).toEqual(['mcp__fx__ask_write'])
    const other = program().check(tool('ask_move'), {}, signal())
    await prompter.askedCount(2)
    prompter.answer('once')
    expect(await other).toBe('approved')
    expect(prompter.asked).toEqual(['mcp__fx__ask_write', 'mcp__fx__ask_move'])
  })

  it('asks one question at a time; "for the rest of the program" covers the calls already waiting', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = new ProgramApprovals({
      policy: policy(),
      prompter,
      clock: programClock,
      logger: silentLogger,
    })
    const calls = [1, 2, 3].map(() => approvals.check(tool('ask_a'), {}, signal()))
    const other = approvals.check(tool('ask_b'), {}, signal())
    await prompter.askedCount(1)
    prompter.answer('program')
    await prompter.askedCount(2)
    expect(prompter.asked).toEqual(['mcp__fx__ask_a', 'mcp__fx__ask_b'])
    prompter.answer('deny')
    expect(await Promise.all(calls)).toEqual(['approved', 'approved', 'approved'])
    await expect(other).rejects.toMatchObject({kind: 'denied'})
    expect(prompter.maxOpen).toBe(1)
    expect(state.pauses).toBe(4)
    expect(state.resumes).toBe(4)
  })

  it('no answer in time: denied, and later calls are denied without asking', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = new ProgramApprovals({
      policy: policy(0.05),
      prompter,
      clock: programClock,
      logger: silentLogger,
    })
    const error = await approvals.check(tool('ask_a'), {}, signal()).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(ToolError)
    expect((error as ToolError).message).toMatch(
      /^denied: nobody answered the approval question within 0\.05s/,
    )
    await expect(approvals.check(tool('ask_b'), {}, signal())).rejects.toMatchObject({kind: 'denied'})
    expect(prompter.asked).toEqual(['mcp__fx__ask_a'])
    expect(state.pauses).toBe(state.resumes)
  })

  it('a timeout that is no whole number of milliseconds (0.0201 s) still bounds the question', async () => {
    const approvals = new ProgramApprovals({
      policy: policy(0.0201),
      prompter: new ScriptedPrompter(),
      clock: clock().clock,
      logger: silentLogger,
    })
    await expect(approvals.check(tool('ask_a'), {}, signal())).rejects.toMatchObject({kind: 'denied'})
  })

  it('the end of the program ends the question', async () => {
    const prompter = new ScriptedPrompter()
    const {state, clock: programClock} = clock()
    const approvals = new ProgramApprovals({
      policy: policy(),
      prompter,
      clock: programClock,
      logger: silentLogger,
    })
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

  it("the advice fits the config in force: Claude Code's settings only when ptc-mcp reads them", () => {
    const unlisted = {source: 'unlisted'} as const
    expect(howToAllow(tool('write'), unlisted, false)).toBe(
      `to run it without asking, add "mcp__fx__write" to permissions.allow in ptc-mcp's config`,
    )
    expect(howToAllow(tool('write'), unlisted, true)).toContain("Claude Code's .claude/settings.json")
  })

  it('shortens what it shows', () => {
    expect(shortJson({a: 'x'.repeat(1000)})).toHaveLength(600)
    expect(shortJson({a: 1})).toBe('{"a":1}')
  })

  it('escapes what a terminal or prompt would obey instead of showing: bidi overrides, C1 controls', () => {
    const args = {path: '/tmp/\u202Egnp.exe', note: 'a\u009B2Jb\u2028c\u2066d'}
    const shown = shortJson(args)
    expect(shown).not.toMatch(/[\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/)
    expect(shown).toContain(String.raw`/tmp/\u202egnp.exe`)
    expect(JSON.parse(shown)).toEqual(args)
  })

  it('shows every short argument of a long call, whatever the order the program passed them in', () => {
    const shown = shortJson({content: 'x'.repeat(5000), path: '/home/u/.ssh/authorized_keys'})
    expect(shown.length).toBeLessThanOrEqual(600)
    expect(shown).toContain('"path":"/home/u/.ssh/authorized_keys"')
  })
})
