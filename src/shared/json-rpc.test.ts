// @tier unit
import {deserializeMessage} from '@modelcontextprotocol/server'
import {describe, expect, it} from 'vitest'

import {parseMessage} from './json-rpc.js'

/** What the SDK's own parse makes of a line: the message, or the kind of error it throws. */
function sdk(text: string): unknown {
  try {
    return deserializeMessage(text)
  } catch (error) {
    return error instanceof SyntaxError ? 'SyntaxError' : 'invalid'
  }
}

function ours(text: string): unknown {
  try {
    return parseMessage(text)
  } catch (error) {
    return error instanceof SyntaxError ? 'SyntaxError' : 'invalid'
  }
}

const lines = {
  request:
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_program","arguments":{"code":"print(1)"}}}',
  'request, string id': '{"jsonrpc":"2.0","id":"a","method":"tools/list"}',
  'request with _meta':
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":3},"name":"x"}}',
  'request with a bad _meta':
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":{}}}}',
  notification: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  result: '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}',
  'result with _meta': '{"jsonrpc":"2.0","id":3,"result":{"_meta":{"a":1}}}',
  error: '{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"no"}}',
  'an extra member': '{"jsonrpc":"2.0","id":7,"method":"ping","extra":1}',
  'a fractional id': '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  'a null id': '{"jsonrpc":"2.0","id":null,"method":"ping"}',
  'JSON-RPC 1.0': '{"jsonrpc":"1.0","id":1,"method":"ping"}',
  'params that are an array': '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}',
  'a result that is a string': '{"jsonrpc":"2.0","id":1,"result":"x"}',
  'a result without id': '{"jsonrpc":"2.0","result":{}}',
  'an array': '[1,2]',
  'not JSON': '{"jsonrpc":',
}

describe('parseMessage', () => {
  it.each(Object.entries(lines))('%s: the same message or error as the SDK', (_, text) => {
    expect(ours(text)).toEqual(sdk(text))
  })

  it('tells a line that is not JSON (SyntaxError) from one that is not JSON-RPC', () => {
    expect(ours(lines['not JSON'])).toBe('SyntaxError')
    expect(ours(lines['an extra member'])).toBe('invalid')
    expect(ours(lines.request)).toMatchObject({id: 7, method: 'tools/call'})
  })
})
