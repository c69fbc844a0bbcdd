// @tier unit
/**
 * The README names exactly the answers the approval question offers on the terminal: no answer it
 * does not show (`s` was once documented and never offered), none it shows left out.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {PassThrough} from 'node:stream'
import {expect, it} from 'vitest'

import type {ApprovalQuestion} from '../permissions/approvals.js'

import {TerminalPrompter} from './terminal-prompter.js'

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8')

it("the README's answers to run's approval question are the ones the question offers", async () => {
  const input = Object.assign(new PassThrough(), {isTTY: true})
  const output = Object.assign(new PassThrough(), {isTTY: true})
  let shown = ''
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8')
  })
  const tool = {name: 'mcp__fx__delete', server: 'fx', tool: 'delete', description: '', inputSchema: {}}
  const prompter = new TerminalPrompter(
    input as unknown as NodeJS.ReadStream,
    output as unknown as NodeJS.WriteStream,
  )
  // The answers of a question about one call, and those of the question before the run.
  const questions = [
    {kind: 'calls', calls: [{tool, argsText: '{}', why: 'a test'}]},
    {kind: 'plan', calls: [{tool, times: 'many', samples: [], why: 'a test'}]},
  ] satisfies ApprovalQuestion[]
  for (const question of questions) {
    const answer = prompter.ask(question, new AbortController().signal)
    input.write('n\n')
    expect(await answer).toBe('deny')
  }
  const offered = [...new Set([...shown.matchAll(/\[(\w)\]/g)].map((match) => match[1]))]

  const sentence = README.match(/`ptc-mcp run` asks on the terminal \(([^)]*)\)/)
  expect(sentence, 'README: "`ptc-mcp run` asks on the terminal (...)"').not.toBeNull()
  const documented = [...sentence![1]!.matchAll(/`(\w)`/g)].map((match) => match[1])
  expect(documented.sort()).toEqual(offered.sort())
})
