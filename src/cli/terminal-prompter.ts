import {createInterface} from 'node:readline/promises'

import type {ApprovalChoice, ApprovalPrompter, ApprovalQuestion} from '../permissions/approvals.js'

import {questionText, questionTools} from '../permissions/question-text.js'
import {terminalSafe} from '../shared/terminal-safe.js'

const ANSWERS: Record<string, ApprovalChoice> = {
  a: 'program',
  all: 'program',
  e: 'each',
  each: 'each',
  n: 'deny',
  no: 'deny',
  s: 'session',
  session: 'session',
  y: 'once',
  yes: 'once',
}

/** Questions not understood before the call is denied. */
const MAX_ATTEMPTS = 3

/**
 * `ptc-mcp run` asks on the terminal (SPEC §12): y = allow once (the calls listed), n = deny, a =
 * allow every call of the tools for the rest of the program (`s`, the session, is the same in `run`:
 * one program); before the run, e = ask at each call. Calls waiting together are one question. The
 * question goes to stderr (stdout is the program's output); without a terminal on both, nobody can
 * be asked; the end of input (Ctrl-D) denies.
 */
export class TerminalPrompter implements ApprovalPrompter {
  /** A person at a terminal is not a client that ends a call after so many rounds. */
  readonly uncapped = true

  constructor(
    private readonly input: NodeJS.ReadStream = process.stdin,
    private readonly output: NodeJS.WriteStream = process.stderr,
  ) {}

  unavailable(): string | undefined {
    if (this.input.isTTY && this.output.isTTY) return undefined
    return 'there is no terminal to ask on (`ptc-mcp run --yes` approves every call)'
  }

  async ask(question: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalChoice> {
    this.output.write(`\n${questionText(question).split('\n').map(printable).join('\n')}\n`)
    if (this.input.readableEnded) return 'deny'
    const lines = createInterface({input: this.input, output: this.output, terminal: false})
    // readline's question() never settles once its input ends: the end of input aborts it, and answers "no".
    const ended = new AbortController()
    lines.once('close', () => ended.abort())
    const askedUntil = AbortSignal.any([signal, ended.signal])
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        let answer: string
        try {
          answer = await lines.question(prompt(question), {signal: askedUntil})
        } catch (error) {
          if (signal.aborted) throw error
          return 'deny'
        }
        const choice = ANSWERS[answer.trim().toLowerCase()]
        if (choice) return choice
      }
      return 'deny'
    } finally {
      lines.close()
      this.output.write('\n')
    }
  }
}

/** The line that asks for the answer, its choices fitting the question. */
function prompt(question: ApprovalQuestion): string {
  const tools = questionTools(question).join(', ')
  if (question.kind === 'plan')
    return `Allow these calls? [y] yes, [e] ask at each call, [n] no, [a] all calls of ${tools} in this program: `
  if (question.calls.length > 1)
    return `Allow these ${question.calls.length} calls? [y] yes, [n] no, [a] all calls of ${tools} in this program: `
  return `Allow it? [y] once, [n] no, [a] all calls of ${tools} in this program: `
}

/** `ptc-mcp run --yes`: every call is approved, and recorded as such. */
export const APPROVE_ALL: ApprovalPrompter = {
  uncapped: true,
  unavailable(): undefined {},
  ask: async () => 'program',
}

/**
 * One line of untrusted text (a server's tool name, a program's arguments) for the terminal: every
 * control character shown as terminalSafe shows it, tabs and line breaks too (␉, ␊, \u{2028}).
 */
function printable(text: string): string {
  const oneLine = text.replaceAll(/[\t\n\u2028\u2029]/g, (char) => {
    const code = char.codePointAt(0)!
    return code < 0x20 ? String.fromCodePoint(0x24_00 + code) : `\\u{${code.toString(16)}}`
  })
  return terminalSafe(oneLine)
}
