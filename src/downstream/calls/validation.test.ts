import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'
import {describe, expect, it} from 'vitest'

import {SchemaValidator} from './validation.js'

const QUERY = {
  type: 'object',
  properties: {
    ticker: {type: 'string', minLength: 1},
    limit: {type: 'integer', minimum: 1},
    period: {enum: ['annual', 'quarterly']},
    filter: {
      type: 'object',
      properties: {from: {type: 'string', format: 'date'}},
      additionalProperties: false,
    },
    fields: {type: 'array', items: {$ref: '#/$defs/field'}},
  },
  required: ['ticker'],
  additionalProperties: false,
  $defs: {field: {type: 'string', enum: ['revenue', 'profit']}},
}

describe('SchemaValidator.checkArguments', () => {
  const validator = new SchemaValidator()

  it('accepts valid arguments', () => {
    expect(
      validator.checkArguments(QUERY, {ticker: 'AAPL', limit: 4, period: 'annual', fields: ['profit']}),
    ).toEqual([])
  })

  it('names the property and the problem', () => {
    expect(validator.checkArguments(QUERY, {ticker: 'AAPL', limit: 'four'})).toEqual([
      "argument 'limit': must be integer",
    ])
    expect(validator.checkArguments(QUERY, {ticker: 'AAPL', limit: 0})).toEqual([
      "argument 'limit': must be >= 1",
    ])
    expect(validator.checkArguments(QUERY, {})).toEqual(["missing required argument 'ticker'"])
  })

  it('names unexpected arguments and lists the accepted ones', () => {
    expect(validator.checkArguments(QUERY, {ticker: 'A', limt: 3})).toEqual([
      "unexpected argument 'limt' (accepted: ticker, limit, period, filter, fields)",
    ])
    expect(validator.checkArguments(QUERY, {ticker: 'A', filter: {from: '2024-01-01', to: 'x'}})).toEqual([
      "unexpected argument 'filter.to'",
    ])
  })

  it('lists allowed values, following local $refs into arrays', () => {
    expect(validator.checkArguments(QUERY, {ticker: 'A', period: 'monthly'})).toEqual([
      'argument \'period\': must be one of "annual", "quarterly"',
    ])
    expect(validator.checkArguments(QUERY, {ticker: 'A', fields: ['profit', 'loss']})).toEqual([
      'argument \'fields[1]\': must be one of "revenue", "profit"',
    ])
  })

  it('checks formats', () => {
    expect(validator.checkArguments(QUERY, {ticker: 'A', filter: {from: 'yesterday'}})).toEqual([
      'argument \'filter.from\': must match format "date"',
    ])
  })

  it('reports every problem at once, up to a limit', () => {
    const problems = validator.checkArguments(QUERY, {limit: 'x', period: 1, a: 1, b: 2, c: 3, d: 4})
    expect(problems[0]).toBe("missing required argument 'ticker'")
    expect(problems).toHaveLength(6)
    expect(problems.at(-1)).toMatch(/^\.\.\. and \d+ more$/)
  })

  it('honours a declared draft-07 dialect', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {n: {type: 'number'}},
    }
    expect(validator.checkArguments(draft7, {n: 'x'})).toEqual(["argument 'n': must be number"])
  })

  it('leaves a schema it cannot compile to the server', () => {
    const broken = {type: 'object', properties: {a: {type: 'string', pattern: '('}}}
    expect(validator.compile(broken)).toMatchObject({ok: false})
    expect(validator.checkArguments(broken, {a: 'x'})).toEqual([])
  })

  it('compiles each schema once', () => {
    const schema = {type: 'object', properties: {a: {type: 'string'}}}
    const first = validator.compile(schema)
    expect(validator.compile(schema)).toBe(first)
  })

  it('does not mix up two schemas with the same $id', () => {
    const a = {$id: 'input', type: 'object', properties: {x: {type: 'string'}}}
    const b = {$id: 'input', type: 'object', properties: {x: {type: 'number'}}}
    expect(validator.checkArguments(a, {x: 'text'})).toEqual([])
    expect(validator.checkArguments(b, {x: 'text'})).toEqual(["argument 'x': must be number"])
  })
})

describe('SchemaValidator.checkResult', () => {
  const validator = new SchemaValidator()
  const output = {
    type: 'object',
    properties: {
      rows: {
        type: 'array',
        items: {type: 'object', properties: {price: {type: 'number'}}, required: ['price']},
      },
    },
    required: ['rows'],
  }

  it('accepts a matching result and names the fields of one that does not match', () => {
    expect(validator.checkResult(output, {rows: [{price: 1}]})).toEqual([])
    expect(validator.checkResult(output, {rows: [{price: '1'}, {}]})).toEqual([
      "field 'rows[0].price': must be number",
      "missing required field 'rows[1].price'",
    ])
    expect(validator.checkResult(output, [])).toEqual(['result: must be object'])
  })
})

describe("messages from Ajv's error objects", () => {
  const validator = new SchemaValidator()

  it('decodes JSON Pointer segments of the path', () => {
    const schema = {
      type: 'object',
      properties: {'b/c': {type: 'array', items: {type: 'string'}}, 'x~y': {type: 'number'}},
      required: ['a'],
    }
    expect(validator.checkArguments(schema, {'b/c': [1], 'x~y': 'n'})).toEqual([
      "missing required argument 'a'",
      "argument 'b/c[0]': must be string",
      "argument 'x~y': must be number",
    ])
  })

  it('names a property whose name has a space as itself', () => {
    const schema = {
      type: 'object',
      properties: {'my key': {type: 'string'}},
      required: ['my key'],
      additionalProperties: false,
    }
    expect(validator.checkArguments(schema, {'my key': 1})).toEqual(["argument 'my key': must be string"])
    expect(validator.checkArguments(schema, {})).toEqual(["missing required argument 'my key'"])
    expect(validator.checkArguments(schema, {'my key': 'v', 'my other key': 1})).toEqual([
      "unexpected argument 'my other key' (accepted: my key)",
    ])
  })

  it('reports a pattern containing ", data/" as one problem', () => {
    const schema = {
      type: 'object',
      properties: {path: {type: 'string', pattern: '^a, data/b$'}, n: {type: 'integer'}},
    }
    expect(validator.checkArguments(schema, {path: 'x'})).toEqual([
      'argument \'path\': must match pattern "^a, data/b$"',
    ])
    expect(validator.checkArguments(schema, {path: 'x', n: 'y'})).toEqual([
      'argument \'path\': must match pattern "^a, data/b$"',
      "argument 'n': must be integer",
    ])
  })

  it('names the one unevaluated property, not every property of a combined schema', () => {
    const schema = {allOf: [{properties: {a: {type: 'number'}}}], unevaluatedProperties: false}
    expect(validator.checkArguments(schema, {a: 1, b: 2})).toEqual(["unexpected argument 'b'"])
  })

  it('lists the allowed values inside combinators too', () => {
    const schema = {type: 'object', properties: {mode: {anyOf: [{enum: ['a', 'b']}, {const: 3}]}}}
    expect(validator.checkArguments(schema, {mode: 'c'})).toEqual([
      'argument \'mode\': must be one of "a", "b"',
      "argument 'mode': must be 3",
      "argument 'mode': must match a schema in anyOf",
    ])
  })
})

describe('validation that no value can stall (SPEC §15)', () => {
  const validator = new SchemaValidator()
  const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties,
    ...extra,
  })

  it('patterns run in linear time: ^(a+)+$ against "a"*28+"!" (seconds, exponentially, with RegExp)', () => {
    const schema = object({word: {type: 'string', pattern: '^(a+)+$'}})
    expect(validator.checkArguments(schema, {word: `${'a'.repeat(28)}!`})).toEqual([
      `argument 'word': must match pattern "^(a+)+$"`,
    ])
    expect(validator.checkArguments(schema, {word: 'a'.repeat(100_000)})).toEqual([])
    // patternProperties too, in Ajv and where unexpected keys are named.
    const keyed = object({}, {patternProperties: {'^(a+)+$': {type: 'number'}}, additionalProperties: false})
    expect(validator.checkArguments(keyed, {[`${'a'.repeat(28)}!`]: 1, aaa: 2})).toEqual([
      `unexpected argument '${'a'.repeat(28)}!'`,
    ])
  })

  it('a pattern the linear-time engine cannot run is refused with a clear error', () => {
    const schema = object({code: {type: 'string', pattern: '^(?=.*[A-Z]).+$'}})
    expect(validator.checkArguments(schema, {code: 'Abc'})).toEqual([
      'its schema has the pattern "^(?=.*[A-Z]).+$", which ptc-mcp cannot check in linear time (invalid or unsupported Perl syntax: `(?=`)',
    ])
    expect(validator.checkResult(object({a: {pattern: '(x)\\1'}}), {a: 'xx'})).toEqual([
      expect.stringMatching(
        /^its schema has the pattern "\(x\)\\\\1", which ptc-mcp cannot check in linear time/,
      ),
    ])
  })

  it('a large value is checked up to its first problem: a million wrong items cost one message', () => {
    const schema = object({fields: {type: 'array', items: {enum: ['revenue', 'profit']}}})
    const problems = validator.checkArguments(schema, {fields: Array.from({length: 1_000_000}, () => 1)})
    expect(problems).toEqual([`argument 'fields[0]': must be one of "revenue", "profit"`])
    // A small one still gets its problems together.
    expect(validator.checkArguments(schema, {fields: [1, 2, 'profit', 3]})).toEqual([
      `argument 'fields[0]': must be one of "revenue", "profit"`,
      `argument 'fields[1]': must be one of "revenue", "profit"`,
      `argument 'fields[3]': must be one of "revenue", "profit"`,
    ])
  })

  it('declared dialects still pick their engine, and an unknown one is left to the server', () => {
    const draft7 = {$schema: 'http://json-schema.org/draft-07/schema#', ...object({a: {type: 'string'}})}
    expect(validator.checkArguments(draft7, {a: 1})).toEqual(["argument 'a': must be string"])
    const unknown = {$schema: 'https://example.com/my-dialect', ...object({a: {type: 'string'}})}
    expect(validator.compile(unknown)).toMatchObject({ok: false, refused: false})
    expect(validator.checkArguments(unknown, {a: 1})).toEqual([])
  })
})

describe('compiled schemas over a long run', () => {
  it('lets go of the schemas of tools that are gone, however many came and went', async () => {
    setFlagsFromString('--expose-gc')
    const collectGarbage = runInNewContext('gc') as () => void
    const validator = new SchemaValidator()
    const toolSchema = (i: number) => ({type: 'object', properties: {[`p${i}`]: {type: 'string'}}})
    let first: Record<string, unknown> | undefined = toolSchema(0)
    // Ajv compiles a copy of the schema that shares its parts: this one is the original's.
    const part = new WeakRef(first.properties as object)
    expect(validator.checkArguments(first, {p0: 1})).toEqual(["argument 'p0': must be string"])
    first = undefined
    // Tool lists refreshed again and again: each brings new schema objects.
    let latest = toolSchema(1)
    for (let i = 1; i <= 600; i++) {
      latest = toolSchema(i)
      validator.checkArguments(latest, {})
    }

    await new Promise((resolve) => {
      setImmediate(resolve)
    })
    collectGarbage()
    expect(part.deref()).toBeUndefined()
    // What is still in use keeps working.
    expect(validator.checkArguments(latest, {p600: 1})).toEqual(["argument 'p600': must be string"])
  })
})
