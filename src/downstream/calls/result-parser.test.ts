import {describe, expect, it} from 'vitest'

import {
  describeOmittedContent,
  hasMedia,
  jsonEqual,
  loneText,
  MediaContent,
  parseToolResult,
  toolErrorText,
  type ToolResultContentItem,
} from './result-parser.js'

const text = (t: string) => ({type: 'text', text: t})
const image = {type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png'}

describe('parseToolResult: structuredContent', () => {
  it('uses structuredContent when present', () => {
    expect(parseToolResult({content: [], structuredContent: {price: 12.5}})).toEqual({price: 12.5})
  })

  it('drops text that is the JSON rendering of structuredContent, whatever its whitespace and key order', () => {
    const result = parseToolResult({
      content: [text('{\n  "b": [1, 2],\n  "a": {"y": 2, "x": 1}\n}')],
      structuredContent: {a: {x: 1, y: 2}, b: [1, 2]},
    })
    expect(result).toEqual({a: {x: 1, y: 2}, b: [1, 2]})
  })

  it('keeps text that is not the rendering of structuredContent as _notes', () => {
    const result = parseToolResult({
      content: [text('{"price": 12.5}'), text('Prices are delayed by 15 minutes'), text('{"price": 13}')],
      structuredContent: {price: 12.5},
    })
    expect(result).toEqual({price: 12.5, _notes: ['Prices are delayed by 15 minutes', '{"price": 13}']})
  })

  it('drops text that repeats one of its fields: the text of a string field, the JSON of any field', () => {
    // server-filesystem: {content: text} and the same text as a text item.
    const file = 'line 1\nline 2\n'.repeat(500)
    expect(parseToolResult({content: [text(file)], structuredContent: {content: file}})).toEqual({
      content: file,
    })
    // server-filesystem's directory_tree: the field is itself JSON text.
    const tree = JSON.stringify([{name: 'a', type: 'file'}], null, 2)
    expect(parseToolResult({content: [text(tree)], structuredContent: {content: tree}})).toEqual({
      content: tree,
    })
    // server-memory: {entities: [...]} and the list alone, pretty-printed.
    const entities = [{name: 'Ann', entityType: 'person', observations: ['likes tea']}]
    expect(
      parseToolResult({content: [text(JSON.stringify(entities, null, 2))], structuredContent: {entities}}),
    ).toEqual({entities})
    // server-memory's delete_*: {success, message} and the message.
    const deleted = {success: true, message: 'Entities deleted successfully'}
    expect(parseToolResult({content: [text(deleted.message)], structuredContent: deleted})).toEqual(deleted)
  })

  it('still keeps text that only resembles a field as a note', () => {
    const result = parseToolResult({
      content: [text('line 1'), text('[{"name": "Bob"}]')],
      structuredContent: {content: 'line 1\n', entities: [{name: 'Ann'}]},
    })
    expect(result).toEqual({
      content: 'line 1\n',
      entities: [{name: 'Ann'}],
      _notes: ['line 1', '[{"name": "Bob"}]'],
    })
  })

  it('ignores structuredContent that is not an object and parses the text instead', () => {
    expect(parseToolResult({content: [text('[1, 2]')], structuredContent: [1, 2]})).toEqual([1, 2])
    expect(parseToolResult({content: [text('7')], structuredContent: null})).toBe(7)
  })

  it('wraps an object that already has its own _notes key rather than overwriting it', () => {
    const result = parseToolResult({content: [text('extra')], structuredContent: {_notes: 'mine'}})
    expect(result).toEqual({data: {_notes: 'mine'}, _notes: ['extra']})
  })

  it('does not mutate the structuredContent it was given', () => {
    const structuredContent = {a: 1}
    parseToolResult({content: [text('note')], structuredContent})
    expect(structuredContent).toEqual({a: 1})
  })
})

describe('parseToolResult: the FastMCP {"result": v} wrapper', () => {
  it('unwraps a list result, whose items FastMCP renders one text item each', () => {
    const result = parseToolResult({
      content: [text('1'), text('{"a": 2}')],
      structuredContent: {result: [1, {a: 2}]},
    })
    expect(result).toEqual([1, {a: 2}])
  })

  it('unwraps a number result', () => {
    expect(parseToolResult({content: [text('42')], structuredContent: {result: 42}})).toBe(42)
  })

  it('JSON-decodes a string v that parses', () => {
    const result = parseToolResult({
      content: [text('{"rows": 3}')],
      structuredContent: {result: '{"rows": 3}'},
    })
    expect(result).toEqual({rows: 3})
  })

  it('keeps a string v that is not JSON as the string', () => {
    expect(parseToolResult({content: [text('hello')], structuredContent: {result: 'hello'}})).toBe('hello')
  })

  it('unwraps when there is no text at all', () => {
    expect(parseToolResult({structuredContent: {result: {a: 1}}})).toEqual({a: 1})
  })

  it('unwraps a None result to null', () => {
    expect(parseToolResult({content: [], structuredContent: {result: null}})).toBeNull()
  })

  it('keeps a genuine "result" key when a text item is exactly the JSON of that object', () => {
    const result = parseToolResult({
      content: [text('{"result": [1, 2]}')],
      structuredContent: {result: [1, 2]},
    })
    expect(result).toEqual({result: [1, 2]})
  })

  it('keeps a genuine "result" key whose text rendering differs only in whitespace', () => {
    const result = parseToolResult({
      content: [text('{\n  "result": "x"\n}')],
      structuredContent: {result: 'x'},
    })
    expect(result).toEqual({result: 'x'})
  })

  it('does not treat an object with more keys than "result" as the wrapper', () => {
    const result = parseToolResult({content: [], structuredContent: {result: 1, total: 2}})
    expect(result).toEqual({result: 1, total: 2})
  })

  it('keeps text that is not a rendering of v as _notes, wrapping a value that cannot carry them', () => {
    const result = parseToolResult({
      content: [text('[1, 2]'), text('2 rows')],
      structuredContent: {result: [1, 2]},
    })
    expect(result).toEqual({data: [1, 2], _notes: ['2 rows']})
  })
})

describe('parseToolResult: text only', () => {
  it('parses one JSON text item', () => {
    expect(parseToolResult({content: [text('{"a": [1, null]}')]})).toEqual({a: [1, null]})
  })

  it('parses a JSON number text as a number', () => {
    expect(parseToolResult({content: [text('42')]})).toBe(42)
  })

  it('parses the text "true" as a boolean', () => {
    expect(parseToolResult({content: [text('true')]})).toBe(true)
  })

  it('parses the text "null" as null', () => {
    expect(parseToolResult({content: [text('null')]})).toBeNull()
  })

  it('returns one text item that is not JSON as the string', () => {
    expect(parseToolResult({content: [text('The weather is fine')]})).toBe('The weather is fine')
    expect(parseToolResult({content: [text('')]})).toBe('')
  })

  it('takes the only JSON item among several, the others becoming _notes', () => {
    const result = parseToolResult({
      content: [text('Found 2 rows:'), text('[{"id": 1}, {"id": 2}]'), text('done')],
    })
    expect(result).toEqual({data: [{id: 1}, {id: 2}], _notes: ['Found 2 rows:', 'done']})
  })

  it('puts _notes on an object when it is the only JSON item among several', () => {
    expect(parseToolResult({content: [text('header'), text('{"a": 1}')]})).toEqual({a: 1, _notes: ['header']})
  })

  it('joins several texts by newlines when none parses, then returns the string', () => {
    expect(parseToolResult({content: [text('line one'), text('line two')]})).toBe('line one\nline two')
  })

  it('joins several texts by newlines when more than one parses, and parses the whole when it can', () => {
    expect(parseToolResult({content: [text('1'), text('2')]})).toBe('1\n2')
    expect(parseToolResult({content: [text('note'), text('1'), text('true')]})).toBe('note\n1\ntrue')
    expect(parseToolResult({content: [text('[1,'), text('2]')]})).toEqual([1, 2])
  })
})

describe('parseToolResult: no content', () => {
  it('returns null for an empty content list', () => {
    expect(parseToolResult({content: []})).toBeNull()
  })

  it('returns null when content is missing', () => {
    expect(parseToolResult({})).toBeNull()
  })
})

describe('parseToolResult: non-text content', () => {
  // 'iVBORw0KGgo=' is the 8-byte PNG signature.
  const png = {type: 'image', mime_type: 'image/png', size: 8, data: 'iVBORw0KGgo='}
  // What the child receives: the entries as plain objects.
  const plain = (value: unknown): unknown => structuredClone(value)

  it('makes an image-only result {data: null, _media: [image]}', () => {
    const value = parseToolResult({content: [image]})
    expect(plain(value)).toEqual({data: null, _media: [png]})
    expect(hasMedia(value)).toBe(true)
    expect((value as {_media: unknown[]})._media[0]).toBeInstanceOf(MediaContent)
  })

  it('adds _media to an object parsed from text', () => {
    expect(plain(parseToolResult({content: [text('{"a": 1}'), image]}))).toEqual({a: 1, _media: [png]})
  })

  it('wraps a string, an array and a number that cannot carry _media', () => {
    expect(plain(parseToolResult({content: [text('a chart'), image]}))).toEqual({
      data: 'a chart',
      _media: [png],
    })
    expect(plain(parseToolResult({content: [text('[1]'), image]}))).toEqual({data: [1], _media: [png]})
    expect(plain(parseToolResult({content: [text('0'), image]}))).toEqual({data: 0, _media: [png]})
  })

  it('wraps an object that has its own _media or _notes key', () => {
    const structuredContent = {_media: 'mine'}
    expect(plain(parseToolResult({content: [image], structuredContent}))).toEqual({
      data: {_media: 'mine'},
      _media: [png],
    })
    expect(hasMedia(parseToolResult({content: [text('{"_media": [1]}')]}))).toBe(false)
  })

  it('adds _media to structuredContent, next to the text notes', () => {
    const result = parseToolResult({content: [text('hello'), image], structuredContent: {a: 1}})
    expect(plain(result)).toEqual({a: 1, _notes: ['hello'], _media: [png]})
  })

  it('makes embedded text and blob resources and audio Media, with uri and size', () => {
    const result = parseToolResult({
      content: [
        {type: 'resource', resource: {uri: 'file:///tmp/report.csv', mimeType: 'text/csv', text: 'a,é'}},
        {type: 'resource', resource: {uri: 'file:///tmp/x.bin', blob: 'AAEC'}},
        {type: 'audio', mimeType: 'audio/wav', data: 'UklGRg=='} as ToolResultContentItem,
      ],
    })
    expect(plain(result)).toEqual({
      data: null,
      _media: [
        {type: 'resource', mime_type: 'text/csv', uri: 'file:///tmp/report.csv', text: 'a,é', size: 4},
        {type: 'resource', mime_type: null, uri: 'file:///tmp/x.bin', data: 'AAEC', size: 3},
        {type: 'audio', mime_type: 'audio/wav', data: 'UklGRg==', size: 4},
      ],
    })
  })

  it('keeps the text and leaves a note for media over what is left of max_tool_result_bytes', () => {
    const big = {type: 'image', mimeType: 'image/png', data: 'A'.repeat(4000)} as ToolResultContentItem
    const small = {type: 'audio', mimeType: 'audio/wav', data: 'UklGRg=='} as ToolResultContentItem
    // 4000 bytes of base64 do not fit in 3000; the 8 bytes of the audio after it do.
    const result = parseToolResult({content: [text('a chart'), big, small]}, {bytes: 3000, limit: 16 * 1024})
    expect(plain(result)).toEqual({
      data: 'a chart',
      _notes: [
        '[non-text content omitted: image (image/png), 2.9 KiB: over the 16 KiB limit (execution.max_tool_result_bytes)]',
      ],
      _media: [{type: 'audio', mime_type: 'audio/wav', data: 'UklGRg==', size: 4}],
    })
    // Exactly what is left fits.
    expect(plain(parseToolResult({content: [big]}, {bytes: 4000, limit: 4000}))).toEqual({
      data: null,
      _media: [{type: 'image', mime_type: 'image/png', data: 'A'.repeat(4000), size: 3000}],
    })
    const textResource = {type: 'resource', resource: {uri: 'file:///r.txt', text: 'é'.repeat(10)}}
    expect(parseToolResult({content: [textResource]}, {bytes: 19, limit: 100})).toEqual({
      data: null,
      _notes: [
        '[non-text content omitted: resource (file:///r.txt), 20 bytes: over the 100 bytes limit (execution.max_tool_result_bytes)]',
      ],
    })
  })

  it('keeps a note for a resource link and for an image without data', () => {
    const result = parseToolResult({
      content: [
        {type: 'resource_link', uri: 'https://x.test/a', name: 'a'},
        {type: 'image', mimeType: 'image/png'},
      ],
    })
    expect(result).toEqual({
      data: null,
      _notes: [
        '[non-text content omitted: resource_link (https://x.test/a)]',
        '[non-text content omitted: image (image/png)]',
      ],
    })
  })

  it('describes audio, resource links and unknown content types', () => {
    expect(describeOmittedContent({type: 'audio', mimeType: 'audio/wav'})).toBe(
      '[non-text content omitted: audio (audio/wav)]',
    )
    expect(describeOmittedContent({type: 'resource_link', uri: 'https://x.test/a', name: 'a'})).toBe(
      '[non-text content omitted: resource_link (https://x.test/a)]',
    )
    expect(describeOmittedContent({type: 'hologram'})).toBe('[non-text content omitted: hologram]')
  })

  it('treats a text item without a text field as non-text', () => {
    expect(parseToolResult({content: [{type: 'text'}]})).toEqual({
      data: null,
      _notes: ['[non-text content omitted: text]'],
    })
  })
})

describe('toolErrorText', () => {
  it("is the server's text", () => {
    expect(toolErrorText({isError: true, content: [text('no such ticker'), text('try AAPL')]})).toBe(
      'no such ticker\ntry AAPL',
    )
  })

  it('falls back to structuredContent, then to a fixed message', () => {
    expect(toolErrorText({isError: true, structuredContent: {code: 4}})).toBe('{"code":4}')
    expect(toolErrorText({isError: true, content: []})).toBe('(the server gave no error message)')
  })
})

describe('jsonEqual', () => {
  it('ignores key order but not values, array order or types', () => {
    expect(jsonEqual({a: 1, b: [1, 2]}, {b: [1, 2], a: 1})).toBe(true)
    expect(jsonEqual([1, 2], [2, 1])).toBe(false)
    expect(jsonEqual({a: 1}, {a: '1'})).toBe(false)
    expect(jsonEqual({a: 1}, {a: 1, b: undefined})).toBe(false)
    expect(jsonEqual(null, {})).toBe(false)
    expect(jsonEqual([], {})).toBe(false)
  })
})

describe('loneText', () => {
  it('is the text of a result that is one text item and nothing else', () => {
    expect(loneText({content: [text('{"a": 1}')]})).toBe('{"a": 1}')
    expect(loneText({content: [text('')]})).toBe('')
    // structuredContent that is not an object is ignored, as parseToolResult ignores it.
    expect(loneText({content: [text('[1]')], structuredContent: [1]})).toBe('[1]')
  })

  it('is undefined when anything else needs the parsing rules: notes, several items, structure', () => {
    expect(loneText({content: []})).toBeUndefined()
    expect(loneText({content: [text('a'), text('b')]})).toBeUndefined()
    expect(loneText({content: [text('a'), image]})).toBeUndefined()
    expect(loneText({content: [image]})).toBeUndefined()
    expect(loneText({content: [text('{"a": 1}')], structuredContent: {a: 1}})).toBeUndefined()
  })
})
