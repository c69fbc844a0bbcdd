import {describe, expect, it} from 'vitest'

import {parseAjvErrorsText, SchemaValidator} from './validation.js'

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

describe('parseAjvErrorsText', () => {
  it('splits errors and decodes JSON Pointer segments', () => {
    expect(parseAjvErrorsText("data must have required property 'a', data/b~1c/0 must be string")).toEqual([
      {path: [], message: "must have required property 'a'"},
      {path: ['b/c', '0'], message: 'must be string'},
    ])
  })
})
