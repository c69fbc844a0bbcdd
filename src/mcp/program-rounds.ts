import {
  createRequestStateCodec,
  type InputRequest,
  type InputRequests,
  type RequestStateCodec,
} from '@modelcontextprotocol/server'
import {createHash, randomBytes} from 'node:crypto'

import type {RunOutcome} from '../execution/index.js'

/** What a requestState carries: which paused program, which of its rounds, and for which code. */
interface RoundState {
  run: string
  round: number
  code: string
  /** The principal it was issued to (the gateway, SPEC §18); absent over stdio. */
  who?: string
}

/** A question a program waits on, until the client's next call answers it. */
interface Question {
  request: InputRequest
  settle(response: unknown): void
}

/** What a call of execute_program answers in the 2026-07-28 protocol. */
export type RoundAnswer =
  | {kind: 'done'; outcome: RunOutcome}
  | {kind: 'input'; inputRequests: InputRequests; requestState: string}
  | {kind: 'refused'; message: string}

/** What a program run through rounds is given: where its questions go, and its end. */
export interface RoundRun {
  /** Puts a question to the client; resolves with the client's response. Aborting withdraws it. */
  ask(request: InputRequest, signal: AbortSignal): Promise<unknown>
  /** Aborted when the program must end: nobody answered in time, the client cancelled, serve stops. */
  signal: AbortSignal
  /** The input_required answers this program has given so far (Claude Code ends a call after 10). */
  rounds(): number
}

class PausedRun {
  round = 0
  /** input_required answers given. */
  asked = 0
  readonly questions = new Map<string, Question>()
  readonly abort = new AbortController()
  outcome!: Promise<RunOutcome>
  /** Ends the program when the client does not come back with an answer in time. */
  timer: NodeJS.Timeout | undefined
  private nextKey = 0
  private wake: (() => void) | undefined

  constructor(
    readonly id: string,
    readonly code: string,
    readonly who?: string,
  ) {}

  ask(request: InputRequest, signal: AbortSignal): Promise<unknown> {
    const key = `q${++this.nextKey}`
    return new Promise((resolve, reject) => {
      const withdraw = () => {
        this.questions.delete(key)
        reject(signal.reason)
      }
      if (signal.aborted) {
        withdraw()
        return
      }
      signal.addEventListener('abort', withdraw, {once: true})
      this.questions.set(key, {
        request,
        settle: (response) => {
          signal.removeEventListener('abort', withdraw)
          this.questions.delete(key)
          resolve(response)
        },
      })
      this.wake?.()
    })
  }

  /** Resolves once a question is waiting (at once if one is). */
  waitForQuestion(): Promise<void> {
    if (this.questions.size > 0) return Promise.resolve()
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined
        resolve()
      }
    })
  }
}

/**
 * Programs that ask the user in the 2026-07-28 protocol, where a server cannot send requests during
 * a call (SPEC §12): a program's questions go out as `input_required` with a requestState, the
 * program waits (its clock stopped by the approvals), and the client's repeated call with
 * `inputResponses` resumes the same program. A requestState is MAC'd with a key of this process
 * only, names one round of one program and the program's code, expires with
 * approval_timeout_seconds, and is good for one answer; anything else runs nothing.
 */
export class ProgramRounds {
  private readonly runs = new Map<string, PausedRun>()
  private readonly codec: RequestStateCodec<RoundState>

  constructor(private readonly timeoutMs: number) {
    this.codec = createRequestStateCodec<RoundState>({
      key: randomBytes(32),
      ttlSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)),
    })
  }

  /** Starts a program, answering once it ends or first asks something. */
  async start(
    code: string,
    run: (round: RoundRun) => Promise<RunOutcome>,
    signal: AbortSignal,
    principal?: string,
  ): Promise<RoundAnswer> {
    const paused = new PausedRun(randomBytes(16).toString('hex'), codeHash(code), principal)
    this.runs.set(paused.id, paused)
    paused.outcome = run(roundRun(paused))
    return this.next(paused, signal)
  }

  /** Answers the questions of a round with the client's responses and runs on to the next answer. */
  async resume(
    state: string,
    code: string,
    responses: Record<string, unknown> | undefined,
    signal: AbortSignal,
    principal?: string,
  ): Promise<RoundAnswer> {
    let claim: RoundState
    try {
      // No binding to a request context: the key, this process's own, is the binding.
      claim = await this.codec.verify(state, undefined as never)
    } catch (error) {
      return {
        kind: 'refused',
        message: stateRefusal(error instanceof Error ? error.message : '', this.timeoutMs),
      }
    }
    if (claim.who !== principal) {
      return {
        kind: 'refused',
        message:
          'this requestState was issued to another caller: nothing ran. Call execute_program again without it to run the program as yourself.',
      }
    }
    const paused = this.runs.get(claim.run)
    if (!paused || paused.round !== claim.round) {
      return {
        kind: 'refused',
        message:
          'this requestState was already answered, or its program has ended: nothing ran. Call execute_program again without it to run the program anew.',
      }
    }
    if (paused.code !== claim.code || codeHash(code) !== claim.code) {
      return {
        kind: 'refused',
        message:
          'this requestState belongs to another program (the code differs): nothing ran. Send it back with the same code, or call execute_program without it.',
      }
    }
    // Good for one answer: a second call with the same state (a replay) finds the round moved on.
    paused.round++
    clearTimeout(paused.timer)
    for (const [key, question] of paused.questions) {
      if (responses && Object.hasOwn(responses, key)) question.settle(responses[key])
    }
    return this.next(paused, signal)
  }

  /** The program most recently started or resumed that is still running, to carry a forwarded request. */
  latest(): RoundRun | undefined {
    const paused = [...this.runs.values()].at(-1)
    return paused && roundRun(paused)
  }

  private async next(paused: PausedRun, signal: AbortSignal): Promise<RoundAnswer> {
    const cancel = () => this.end(paused)
    signal.addEventListener('abort', cancel, {once: true})
    // The map keeps insertion order: a resumed program counts as the latest.
    this.runs.delete(paused.id)
    this.runs.set(paused.id, paused)
    try {
      const first = await Promise.race([paused.outcome.then(() => 'done' as const), paused.waitForQuestion()])
      if (first === 'done' || paused.questions.size === 0) {
        this.runs.delete(paused.id)
        return {kind: 'done', outcome: await paused.outcome}
      }
      const inputRequests: InputRequests = {}
      for (const [key, question] of paused.questions) inputRequests[key] = question.request
      const requestState = await this.codec.mint({
        run: paused.id,
        round: paused.round,
        code: paused.code,
        who: paused.who,
      })
      paused.asked++
      paused.timer = setTimeout(() => this.end(paused), this.timeoutMs)
      paused.timer.unref()
      return {kind: 'input', inputRequests, requestState}
    } finally {
      signal.removeEventListener('abort', cancel)
    }
  }

  private end(paused: PausedRun): void {
    clearTimeout(paused.timer)
    this.runs.delete(paused.id)
    paused.abort.abort(new Error('the program ended while the user was asked'))
  }
}

function roundRun(paused: PausedRun): RoundRun {
  return {
    ask: (request, signal) => paused.ask(request, signal),
    signal: paused.abort.signal,
    rounds: () => paused.asked,
  }
}

function codeHash(code: string): string {
  return createHash('sha256').update(code).digest('base64url').slice(0, 22)
}

/** The codec's reasons (malformed, mac, expired, bind) as the model reads them. */
function stateRefusal(reason: string, timeoutMs: number): string {
  if (reason === 'expired') {
    return `this requestState expired (permissions.approval_timeout_seconds: ${timeoutMs / 1000}): its program has ended and nothing ran. Call execute_program again without it to run the program anew.`
  }
  return 'this requestState was not issued by this ptc-mcp process (it is malformed, altered, or from before a restart): nothing ran. Call execute_program again without it to run the program anew.'
}
