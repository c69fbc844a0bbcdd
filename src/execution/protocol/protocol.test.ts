import {describe, expect, test} from 'vitest'

import {jsonShapeProblem} from '../../shared/json-shape.js'
import {MAX_DONE_ERROR_CHARS, MAX_JSON_CONTAINERS, MAX_JSON_DEPTH} from '../../shared/limits.js'
import {parseChildMessage, ProtocolError, RefusedRequest} from './protocol.js'

describe('child protocol', () => {
  describe('parseChildMessage', () => {
    const parse = (value: unknown) => parseChildMessage(Buffer.from(JSON.stringify(value)))

    test('accepts the messages of the protocol', () => {
      expect(parse({type: 'call', id: 1, tool: 'mcp__a__b', args: {x: 1}})).toEqual({
        type: 'call',
        id: 1,
        tool: 'mcp__a__b',
        args: {x: 1},
      })
      expect(parse({type: 'helper', id: 2, name: 'server_status', args: {}})).toMatchObject({
        name: 'server_status',
      })
      expect(parse({type: 'cancel', id: 3})).toEqual({type: 'cancel', id: 3})
      expect(parse({type: 'done', ok: false, error: 'x', has_result: true, result: [1]})).toEqual({
        type: 'done',
        ok: false,
        error: 'x',
        hasResult: true,
        result: [1],
      })
      expect(parse({type: 'ready', confine: {tier: 't'}})).toEqual({type: 'ready', confine: {tier: 't'}})
    })

    test.each([
      ['not JSON', Buffer.from('{"type": "done"')],
      ['not an object', Buffer.from('[1]')],
      ['an unknown type', Buffer.from('{"type":"exec"}')],
      ['a call without id', Buffer.from('{"type":"call","tool":"t","args":{}}')],
      ['a call with a fractional id', Buffer.from('{"type":"call","id":1.5,"tool":"t","args":{}}')],
      ['a call with list args', Buffer.from('{"type":"call","id":1,"tool":"t","args":[]}')],
      ['an unknown helper', Buffer.from('{"type":"helper","id":1,"name":"eval","args":{}}')],
      ['a done without ok', Buffer.from('{"type":"done","error":null}')],
      ['a done with a non-string error', Buffer.from('{"type":"done","ok":false,"error":3}')],
    ])('refuses %s', (_name, line) => {
      expect(() => parseChildMessage(line)).toThrow(ProtocolError)
    })
  })

  describe('hostile messages (SPEC §15)', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
    const thrown = (line: string): unknown => {
      try {
        parseChildMessage(Buffer.from(line))
      } catch (error) {
        return error
      }
      return undefined
    }

    test('jsonShapeProblem counts nesting outside strings only, escapes included', () => {
      expect(jsonShapeProblem(Buffer.from(nested(5)), 5)).toBeUndefined()
      expect(jsonShapeProblem(Buffer.from(nested(6)), 5)).toMatch(/nested deeper than 5 levels/)
      expect(jsonShapeProblem(Buffer.from(`{"a":"${'['.repeat(50)}"}`), 5)).toBeUndefined()
      expect(jsonShapeProblem(Buffer.from(String.raw`{"a":"\"` + `${'['.repeat(50)}"}`), 5)).toBeUndefined()
      expect(jsonShapeProblem(Buffer.from(`{"a\\\\":[[[[[[]]]]]]}`), 5)).toMatch(/deeper/)
      expect(jsonShapeProblem(Buffer.from(`[${'{},'.repeat(10)}{}]`), 10, 12)).toBeUndefined()
      expect(jsonShapeProblem(Buffer.from(`[${'{},'.repeat(11)}{}]`), 10, 12)).toMatch(/more than 12 lists/)
    })

    test('a done or a call nested 200,000 deep is refused before parsing, without a stack overflow', () => {
      const done = `{"type":"done","ok":true,"error":null,"has_result":true,"result":${nested(200_000)}}`
      expect(() => parseChildMessage(Buffer.from(done))).toThrow(
        new ProtocolError(
          `the child sent a message nested deeper than ${MAX_JSON_DEPTH} levels (tool arguments and emit() values must be smaller)`,
        ),
      )
      const call = `{"type":"call","id":1,"tool":"t","args":{"a":${nested(200_000)}}}`
      expect(() => parseChildMessage(Buffer.from(call))).toThrow(/nested deeper/)
      // The deepest value a call may carry still parses.
      const deepest = `{"type":"call","id":1,"tool":"t","args":{"a":${nested(MAX_JSON_DEPTH - 2)}}}`
      expect(parseChildMessage(Buffer.from(deepest))).toMatchObject({type: 'call'})
    })

    test('a request as runner.py writes it is refused alone: its id is read without parsing', () => {
      const call = `{"type":"call","tool":"mcp__a__b","args":{"a":${nested(200_000)}},"id":7}`
      const refusal = thrown(call)
      expect(refusal).toBeInstanceOf(RefusedRequest)
      expect(refusal).toMatchObject({
        id: 7,
        message: `the arguments are refused: they are nested deeper than ${MAX_JSON_DEPTH} levels; pass less data per call`,
      })
      const helper = `{"type":"helper","name":"inspect_tool","args":{"a":${nested(200)}},"id":8}`
      expect(() => parseChildMessage(Buffer.from(helper))).toThrow(RefusedRequest)
      // Anything else so shaped ends the run.
      const done = `{"type":"done","ok":true,"result":${nested(200)},"id":9}`
      expect(thrown(done)).toBeInstanceOf(ProtocolError)
      expect(thrown(done)).not.toBeInstanceOf(RefusedRequest)
    })

    test('a message of a million empty objects is refused: its parsed form would cost the server ~60x', () => {
      const line = `{"type":"call","id":1,"tool":"t","args":{"a":[${'{},'.repeat(MAX_JSON_CONTAINERS)}{}]}}`
      expect(() => parseChildMessage(Buffer.from(line))).toThrow(/more than 1000000 lists and objects/)
    })

    test('a done result over max_output_bytes is refused, whatever else the line holds', () => {
      const done = (result: unknown, error: string | null = null) =>
        Buffer.from(JSON.stringify({type: 'done', ok: error === null, error, has_result: true, result}))
      expect(() => parseChildMessage(done('x'.repeat(1000)), 1000)).toThrow(
        /result of 1002 bytes, over the 1000-byte limit \(max_output_bytes\)/,
      )
      expect(parseChildMessage(done('x'.repeat(998)), 1000)).toMatchObject({type: 'done', hasResult: true})
      // A long error makes the line long, not the result.
      expect(parseChildMessage(done(1, 'e'.repeat(5000)), 1000)).toMatchObject({type: 'done', result: 1})
    })

    test('a done error longer than any traceback keeps its head', () => {
      const error = 'e'.repeat(10 * MAX_DONE_ERROR_CHARS)
      const message = parseChildMessage(
        Buffer.from(JSON.stringify({type: 'done', ok: false, error, has_result: false, result: null})),
      )
      expect(message).toMatchObject({type: 'done', error: `${'e'.repeat(MAX_DONE_ERROR_CHARS)}\n... (cut)`})
    })
  })
})
