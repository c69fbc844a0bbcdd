import {SdkError, SdkErrorCode} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {afterEach, describe, expect, it} from 'vitest'

import {DownstreamClient, sdkInternals} from './downstream-client.js'

// A stdio server written by hand, so that it can break the protocol: `good` answers a valid
// result (with `resultType`, which the wire codec strips), `bad` one whose content is not a list;
// `plain`, `extra` and `meta` answer results the client checks by hand or passes to the codec.
const SERVER = `
const rl = require('node:readline').createInterface({input: process.stdin})
const send = (message) => process.stdout.write(JSON.stringify({jsonrpc: '2.0', ...message}) + '\\n')
rl.on('line', (line) => {
  const {id, method, params} = JSON.parse(line)
  if (id === undefined) return
  if (method === 'initialize')
    return send({id, result: {protocolVersion: params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'raw', version: '1'}}})
  if (method === 'tools/list')
    return send({id, result: {tools: [{name: 'good', inputSchema: {type: 'object'}}, {name: 'bad', inputSchema: {type: 'object'}}]}})
  if (method === 'tools/call' && params.name === 'good')
    return send({id, result: {resultType: 'complete', content: [{type: 'text', text: JSON.stringify(params.arguments)}], isError: false}})
  if (method === 'tools/call' && params.name === 'plain')
    return send({id, result: {content: [{type: 'text', text: 'a'}, {text: 'b', type: 'text'}], structuredContent: {x: [1]}, isError: true}})
  if (method === 'tools/call' && params.name === 'fails') return send({id, error: {code: -32000, message: 'it failed'}})
  if (method === 'tools/call' && params.name === 'meta')
    return send({id, result: {content: [{type: 'text', text: 'm'}], _meta: {k: 1}}})
  if (method === 'tools/call' && params.name === 'extra')
    return send({id, result: {content: [{type: 'text', text: 'a', stray: 1}], other: 2}})
  if (method === 'tools/call' && params.name === 'scalar')
    return send({id, result: {content: [{type: 'text', text: 's'}], structuredContent: params.arguments.value}})
  if (method === 'tools/call') return send({id, result: {content: 'not a list'}})
  send({id, error: {code: -32601, message: 'no such method'}})
})
`

let client: DownstreamClient | undefined

afterEach(async () => {
  await client?.close()
  client = undefined
})

async function connect(): Promise<DownstreamClient> {
  client = new DownstreamClient({name: 'test', version: '1'})
  await client.connect(new StdioClientTransport({command: process.execPath, args: ['-e', SERVER]}))
  expect(client.getProtocolEra()).toBe('legacy')
  return client
}

describe('DownstreamClient.requestTool', () => {
  it('returns what callTool returns', async () => {
    const downstream = await connect()
    const params = {name: 'good', arguments: {n: 1}}
    const expected = await downstream.callTool(params, {timeout: 10_000})
    const result = await downstream.requestTool(params, {timeout: 10_000})
    expect(result).toEqual(expected)
    expect(result).toEqual({content: [{type: 'text', text: '{"n":1}'}], isError: false})
  })

  it('returns text-only results, checked by hand, as the codec returns them', async () => {
    const downstream = await connect()
    for (const name of ['plain', 'extra', 'meta']) {
      const params = {name, arguments: {}}
      const expected = await downstream.callTool(params, {timeout: 10_000})
      expect(await downstream.requestTool(params, {timeout: 10_000})).toEqual(expected)
    }
    expect(await downstream.requestTool({name: 'plain', arguments: {}}, {timeout: 10_000})).toEqual({
      content: [
        {type: 'text', text: 'a'},
        {type: 'text', text: 'b'},
      ],
      structuredContent: {x: [1]},
      isError: true,
    })
  })

  it('dispatches plain results itself with the SDK internals it expects, and errors as the SDK does', async () => {
    const downstream = await connect()
    // An SDK upgrade that renames these only makes responses take the SDK's slower way: look again.
    expect(sdkInternals(downstream)).toBeDefined()
    const params = {name: 'fails', arguments: {}}
    const expected = await downstream.callTool(params, {timeout: 10_000}).catch((error: unknown) => error)
    const error = await downstream.requestTool(params, {timeout: 10_000}).catch((error_: unknown) => error_)
    expect((error as Error).message).toBe((expected as Error).message)
    expect((error as Error).message).toMatch(/it failed/)
    expect(error?.constructor).toBe(expected?.constructor)
  })

  it('refuses an invalid result with the error callTool gives', async () => {
    const downstream = await connect()
    const params = {name: 'bad', arguments: {}}
    const expected = await downstream.callTool(params, {timeout: 10_000}).catch((error: unknown) => error)
    const error = await downstream.requestTool(params, {timeout: 10_000}).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(SdkError)
    expect((error as SdkError).code).toBe(SdkErrorCode.InvalidResult)
    expect((error as SdkError).message).toMatch(/^Invalid result for tools\/call: /)
    expect((error as SdkError).message).toBe((expected as SdkError).message)
  })

  it('refuses text results whose structuredContent is not an object, as the codec does', async () => {
    const downstream = await connect()
    for (const value of [5, 'text', [1], null]) {
      const params = {name: 'scalar', arguments: {value}}
      const expected = await downstream.callTool(params, {timeout: 10_000}).catch((error: unknown) => error)
      const error = await downstream.requestTool(params, {timeout: 10_000}).catch((error_: unknown) => error_)
      expect(error).toBeInstanceOf(SdkError)
      expect((error as SdkError).message).toBe((expected as SdkError).message)
    }
  })

  it('keeps the per-call timeout and cancellation', async () => {
    const downstream = await connect()
    const controller = new AbortController()
    controller.abort(new Error('stopped'))
    const aborted = downstream.requestTool({name: 'good', arguments: {}}, {signal: controller.signal})
    await expect(aborted).rejects.toThrow('stopped')
  })
})
