// @tier unit
import {describe, expect, it} from 'vitest'

import {JsonText} from '../downstream/types.js'
import {CUT_MARK, cutResult, parseRecording, receivedValue, recordingText} from './recording.js'

describe("a saved program's recording (SPEC §17)", () => {
  it('redacts secrets from every string, keys included', () => {
    const text = recordingText(
      {
        calls: [
          {
            tool: 'mcp__x__get',
            args: {token: 'sekret-123456'},
            result: {'sekret-123456': 'a sekret-123456 b'},
          },
        ],
        output: 'sekret-123456\n',
      },
      (value) => value.replaceAll('sekret-123456', '[redacted]'),
    )
    expect(text).not.toContain('sekret-123456')
    expect(parseRecording(text)).toEqual({
      version: 1,
      calls: [{tool: 'mcp__x__get', args: {token: '[redacted]'}, result: {'[redacted]': 'a [redacted] b'}}],
      output: '[redacted]\n',
    })
  })

  it('stays within its bound by cutting the largest results first, each marked with its size', () => {
    const big = 'x'.repeat(5000)
    const text = recordingText(
      {
        calls: [
          {tool: 'mcp__x__small', args: {}, result: {n: 1}},
          {tool: 'mcp__x__big', args: {}, result: {text: big}},
        ],
        output: '',
        result: {done: true},
      },
      undefined,
      2000,
    )
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2000)
    const recording = parseRecording(text)!
    expect(recording.calls[0]!.result).toEqual({n: 1})
    expect(cutResult(recording.calls[1]!.result)).toEqual({
      bytes: Buffer.byteLength(JSON.stringify({text: big})),
    })
    expect(recording.calls[1]!.result).toHaveProperty(CUT_MARK)
    expect(recording.result).toEqual({done: true})
  })

  it('records a text result as the program received it: its JSON, else the text', () => {
    expect(receivedValue(new JsonText('{"a": [1]}'))).toEqual({a: [1]})
    expect(receivedValue(new JsonText('plain words'))).toBe('plain words')
    expect(receivedValue({a: 1})).toEqual({a: 1})
  })

  it('reads back only what is a recording', () => {
    expect(parseRecording('not json')).toBeUndefined()
    expect(parseRecording('{"calls": 3}')).toBeUndefined()
    expect(
      parseRecording('{"calls": [{"tool": "t", "args": {}}, {"tool": 1}], "arguments": {"n": 2}}'),
    ).toEqual({
      version: 1,
      calls: [{tool: 't', args: {}}],
      output: '',
      arguments: {n: 2},
    })
  })
})
