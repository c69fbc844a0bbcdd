// @tier unit
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {shortJson} from '../permissions/approvals.js'
import {TerminalPrompter} from './terminal-prompter.js'

/** A stream that says it is a terminal, collecting what is written to it. */
function terminal(): {stream: PassThrough & {isTTY: boolean}; written: () => string} {
  const stream = Object.assign(new PassThrough(), {isTTY: true})
  let text = ''
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8')
  })
  return {stream, written: () => text}
}

describe('TerminalPrompter', () => {
  it("shows a server's tool name and a program's arguments without obeying their control characters", async () => {
    const input = terminal()
    const output = terminal()
    const prompter = new TerminalPrompter(
      input.stream as unknown as NodeJS.ReadStream,
      output.stream as unknown as NodeJS.WriteStream,
    )
    expect(prompter.unavailable()).toBeUndefined()
    const tool = {
      name: 'mcp__fx__delete',
      server: 'fx',
      tool: 'delete\u001B[2K\r\u202Eeteled\nfake line',
      description: '',
      inputSchema: {},
    }
    const answer = prompter.ask(
      {
        kind: 'calls',
        calls: [{tool, argsText: shortJson({path: '/home/u/\u202Etxt.exe', n: '\u009B31m'}), why: 'a test'}],
      },
      new AbortController().signal,
    )
    input.stream.write('y\n')
    expect(await answer).toBe('once')
    const shown = output.written()
    // eslint-disable-next-line no-control-regex -- control characters are what must not be there
    expect(shown.replaceAll('\n', '')).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/)
    expect(shown).toContain(String.raw`tool "delete\u001b[2K\r\u202eeteled\nfake line"`)
    expect(shown).toContain(String.raw`Arguments: {"path":"/home/u/\u202etxt.exe","n":"\u009b31m"}`)
  })
})

describe('TerminalPrompter at the end of input', () => {
  const tool = {name: 'mcp__fx__delete', server: 'fx', tool: 'delete', description: '', inputSchema: {}}
  const request = {kind: 'calls' as const, calls: [{tool, argsText: '{}', why: 'a test'}]}

  it('Ctrl-D (end of input) while asked denies, and so does every later question', async () => {
    const input = terminal()
    const output = terminal()
    const prompter = new TerminalPrompter(
      input.stream as unknown as NodeJS.ReadStream,
      output.stream as unknown as NodeJS.WriteStream,
    )
    const answer = prompter.ask(request, new AbortController().signal)
    input.stream.end()
    expect(await answer).toBe('deny')
    expect(await prompter.ask(request, new AbortController().signal)).toBe('deny')
  })

  it('s allows the tool for the session', async () => {
    const input = terminal()
    const output = terminal()
    const prompter = new TerminalPrompter(
      input.stream as unknown as NodeJS.ReadStream,
      output.stream as unknown as NodeJS.WriteStream,
    )
    const answer = prompter.ask(request, new AbortController().signal)
    input.stream.write('s\n')
    expect(await answer).toBe('session')
  })
})
