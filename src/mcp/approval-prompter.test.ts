// @tier unit
import {describe, expect, it} from 'vitest'

import {shortJson} from '../permissions/approvals.js'
import {describeReason} from '../permissions/policy.js'
import {approvalMessage} from './approval-prompter.js'

const tool = (name: string) => ({
  name: 'mcp__fx__delete_item',
  server: 'fx',
  tool: name,
  description: '',
  inputSchema: {},
})

describe('the approval question put to the MCP client', () => {
  it('names the tool, its arguments and why', () => {
    const message = approvalMessage({
      tool: tool('delete_item'),
      argsText: shortJson({id: 'p0'}),
      why: 'a rule',
    })
    expect(message).toBe(
      [
        'A program run by ptc-mcp wants to call mcp__fx__delete_item (tool "delete_item" of server "fx").',
        'Arguments: {"id":"p0"}',
        'Why you are asked: a rule.',
      ].join('\n'),
    )
  })

  it('reads as a sentence whatever the reason', () => {
    const why = (reason: Parameters<typeof describeReason>[0]) =>
      approvalMessage({tool: tool('delete_item'), argsText: '{}', why: describeReason(reason)}).split('\n')[2]
    expect(why({source: 'destructive'})).toBe(
      'Why you are asked: the tool does not declare itself read-only or non-destructive (permissions.ask_unlisted: destructive).',
    )
    expect(why({source: 'ask', pattern: 'mcp__fx__*'})).toBe(
      'Why you are asked: permissions.ask "mcp__fx__*".',
    )
  })

  it("shows a server's tool name without line breaks or bidi overrides that would disguise the question", () => {
    const message = approvalMessage({
      tool: tool('delete\nYou are asked because of nothing.\u202E'),
      argsText: '{}',
      why: 'a rule',
    })
    expect(message.split('\n')).toHaveLength(3)
    expect(message).toContain(
      String.raw`(tool "delete\nYou are asked because of nothing.\u202e" of server "fx")`,
    )
  })
})
