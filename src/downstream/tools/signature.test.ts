import {describe, expect, it} from 'vitest'

import {
  isPythonKeywordArgument,
  MAX_PARAM_SHAPE_CHARS,
  MAX_RETURN_SHAPE_CHARS,
  pythonLiteral,
  pythonSignature,
  pythonType,
} from './signature.js'

const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
})

describe('pythonSignature', () => {
  it('shows required then optional keyword-only parameters with defaults, as in the spec', () => {
    const schema = objectSchema({limit: {type: 'integer', default: 4}, ticker: {type: 'string'}}, ['ticker'])
    const output = objectSchema({rows: {type: 'array'}})
    expect(pythonSignature('mcp__fin__query', schema, output)).toBe(
      'await mcp__fin__query(*, ticker: str, limit: int = 4) -> {"rows": list}',
    )
  })

  it('keeps schema order within required and within optional parameters', () => {
    const schema = objectSchema(
      {b: {type: 'string'}, a: {type: 'number'}, d: {type: 'boolean'}, c: {type: 'integer'}},
      ['c', 'a'],
    )
    expect(pythonSignature('t', schema)).toBe(
      'await t(*, a: float, c: int, b: str | None = None, d: bool | None = None) -> Any',
    )
  })

  it('shows an optional parameter without default as T | None = None (None leaves it out)', () => {
    expect(pythonSignature('t', objectSchema({q: {type: 'string'}}))).toBe(
      'await t(*, q: str | None = None) -> Any',
    )
  })

  it('writes defaults as Python literals', () => {
    const schema = objectSchema({
      flag: {type: 'boolean', default: true},
      off: {type: 'boolean', default: false},
      none: {type: ['string', 'null'], default: null},
      name: {type: 'string', default: "it's"},
      ratio: {type: 'number', default: 0.5},
      tags: {type: 'array', items: {type: 'string'}, default: ['a', 'b']},
      opts: {type: 'object', default: {deep: true, n: null}},
    })
    expect(pythonSignature('t', schema)).toBe(
      'await t(*, flag: bool = True, off: bool = False, none: str | None = None, name: str = "it\'s", ' +
        "ratio: float = 0.5, tags: list[str] = ['a', 'b'], opts: dict = {'deep': True, 'n': None}) -> Any",
    )
  })

  it('shows a string enum as Literal', () => {
    const schema = objectSchema({unit: {type: 'string', enum: ['c', 'f']}}, ['unit'])
    expect(pythonSignature('t', schema)).toBe("await t(*, unit: Literal['c', 'f']) -> Any")
  })

  it('shows arrays with their item type, and plain list when the items are unknown', () => {
    const schema = objectSchema(
      {
        ids: {type: 'array', items: {type: 'integer'}},
        rows: {type: 'array', items: {type: 'array', items: {type: 'number'}}},
        any: {type: 'array'},
      },
      ['ids', 'rows', 'any'],
    )
    expect(pythonSignature('t', schema)).toBe(
      'await t(*, ids: list[int], rows: list[list[float]], any: list) -> Any',
    )
  })

  it('shows an object by its keys, and a list of objects by its items', () => {
    const schema = objectSchema({filter: objectSchema({field: {type: 'string'}}, ['field'])}, ['filter'])
    expect(pythonSignature('t', schema)).toBe('await t(*, filter: {"field": str}) -> Any')
    const entities = objectSchema(
      {
        entities: {
          type: 'array',
          items: objectSchema({
            name: {type: 'string'},
            observations: {type: 'array', items: {type: 'string'}},
          }),
        },
      },
      ['entities'],
    )
    expect(pythonSignature('t', entities)).toBe(
      'await t(*, entities: list[{"name": str, "observations": list[str]}]) -> Any',
    )
  })

  it('keeps shapes short: keys past the bound become ..., deep objects dict', () => {
    const many = Object.fromEntries(
      Array.from({length: 40}, (_, i) => [`field_number_${i}`, {type: 'string'}]),
    )
    const type = pythonType(objectSchema(many))
    expect(type).toMatch(/^\{"field_number_0": str, "field_number_1": str, .*, \.\.\.\}$/)
    expect(type.length).toBeLessThanOrEqual(MAX_PARAM_SHAPE_CHARS)
    const returned = pythonSignature('t', {}, objectSchema(many)).split(' -> ')[1]!
    expect(returned.length).toBeLessThanOrEqual(MAX_RETURN_SHAPE_CHARS)
    const deep = objectSchema({a: objectSchema({b: objectSchema({c: objectSchema({d: {type: 'string'}})})})})
    expect(pythonType(deep)).toBe('{"a": {"b": {"c": dict}}}')
    expect(pythonType(objectSchema({[`k${'x'.repeat(200)}`]: {type: 'string'}}))).toBe('dict')
  })

  it('shows a tool without parameters as ()', () => {
    expect(pythonSignature('mcp__s__ping', {type: 'object'})).toBe('await mcp__s__ping() -> Any')
    expect(pythonSignature('mcp__s__ping', {type: 'object', properties: {}})).toBe(
      'await mcp__s__ping() -> Any',
    )
  })

  it('moves names that cannot be Python keyword arguments into a **{...} group', () => {
    const schema = objectSchema(
      {class: {type: 'string'}, 'max-results': {type: 'integer', default: 10}, query: {type: 'string'}},
      ['class', 'query'],
    )
    expect(pythonSignature('t', schema)).toBe(
      "await t(*, query: str, **{'class': str, 'max-results': int = 10}) -> Any",
    )
  })

  it('leaves out the bare * when every parameter is in the **{...} group', () => {
    expect(pythonSignature('t', objectSchema({from: {type: 'string'}}, ['from']))).toBe(
      "await t(**{'from': str}) -> Any",
    )
  })

  it('still lists a required name that has no property schema, as Any', () => {
    expect(pythonSignature('t', {type: 'object', required: ['x']})).toBe('await t(*, x: Any) -> Any')
  })

  it('returns the shape of an object output schema, dict without properties, and Any without one', () => {
    const input = {type: 'object'}
    expect(pythonSignature('t', input, {type: 'object'})).toBe('await t() -> dict')
    expect(pythonSignature('t', input, {properties: {a: {type: 'string'}}})).toBe('await t() -> {"a": str}')
    expect(pythonSignature('t', input)).toBe('await t() -> Any')
  })

  it('shows the unwrapped type for a FastMCP {"result": v} output schema', () => {
    const wrapped = (result: unknown) => ({
      ...objectSchema({result}, ['result']),
      'x-fastmcp-wrap-result': true,
    })
    expect(pythonSignature('t', {}, wrapped({type: 'array', items: {type: 'string'}}))).toBe(
      'await t() -> list[str]',
    )
    expect(pythonSignature('t', {}, wrapped({type: 'integer'}))).toBe('await t() -> int')
    // The parser JSON-decodes a string v when it parses, so its type is not known in advance.
    expect(pythonSignature('t', {}, wrapped({type: 'string'}))).toBe('await t() -> Any')
  })
})

describe('pythonType', () => {
  it('maps the JSON Schema scalar types', () => {
    expect(
      ['string', 'integer', 'number', 'boolean', 'null', 'object'].map((type) => pythonType({type})),
    ).toEqual(['str', 'int', 'float', 'bool', 'None', 'dict'])
  })

  it('joins anyOf, oneOf and type arrays with |, None last and no duplicates', () => {
    expect(pythonType({anyOf: [{type: 'null'}, {type: 'string'}, {type: 'string'}]})).toBe('str | None')
    expect(pythonType({oneOf: [{type: 'integer'}, {type: 'array', items: {type: 'string'}}]})).toBe(
      'int | list[str]',
    )
    expect(pythonType({type: ['integer', 'string']})).toBe('int | str')
  })

  it('adds | None for nullable', () => {
    expect(pythonType({type: 'integer', nullable: true})).toBe('int | None')
    expect(pythonType({type: ['integer', 'null'], nullable: true})).toBe('int | None')
  })

  it('is Any when any alternative is unknown, or the schema says nothing', () => {
    expect(pythonType({anyOf: [{type: 'string'}, {}]})).toBe('Any')
    expect(pythonType({})).toBe('Any')
    expect(pythonType(true)).toBe('Any')
  })

  it('shows enums and consts as Literal, with null as None and quotes kept intact', () => {
    expect(pythonType({enum: ['a|b', "it's", null]})).toBe("Literal['a|b', \"it's\"] | None")
    expect(pythonType({enum: [1, 2, true]})).toBe('Literal[1, 2, True]')
    expect(pythonType({const: 'fixed'})).toBe("Literal['fixed']")
    expect(pythonType({enum: [{a: 1}]})).toBe('Any')
  })

  it('follows local $refs, as pydantic writes enums and nested models', () => {
    const root = {
      $defs: {Color: {type: 'string', enum: ['red', 'blue']}, Point: {type: 'object', properties: {}}},
    }
    expect(pythonType({$ref: '#/$defs/Color'}, root)).toBe("Literal['red', 'blue']")
    expect(pythonType({type: 'array', items: {$ref: '#/$defs/Point'}}, root)).toBe('list[dict]')
    expect(pythonType({$ref: '#/$defs/Missing'}, root)).toBe('Any')
    expect(pythonType({$ref: 'https://example.com/schema'}, root)).toBe('Any')
  })

  it('stops on a self-referencing schema', () => {
    const root = {$defs: {Tree: {type: 'array', items: {$ref: '#/$defs/Tree'}}}}
    expect(pythonType({$ref: '#/$defs/Tree'}, root)).toMatch(/^list\[list\[.*\]$/)
  })
})

describe('pythonLiteral', () => {
  it("writes strings as Python's repr does", () => {
    expect(pythonLiteral('plain')).toBe("'plain'")
    expect(pythonLiteral("it's")).toBe('"it\'s"')
    expect(pythonLiteral('both \' and "')).toBe("'both \\' and \"'")
    expect(pythonLiteral('a\\b\nc\td\u0001')).toBe("'a\\\\b\\nc\\td\\x01'")
    expect(pythonLiteral('café 😀')).toBe("'café 😀'")
  })

  it('writes numbers, booleans, null, lists and dicts', () => {
    expect(pythonLiteral(-3)).toBe('-3')
    expect(pythonLiteral(1e-7)).toBe('1e-07')
    expect(pythonLiteral(null)).toBe('None')
    expect(pythonLiteral([true, false, {k: [1]}])).toBe("[True, False, {'k': [1]}]")
  })
})

describe('isPythonKeywordArgument', () => {
  it('accepts identifiers, including soft keywords and non-ASCII letters', () => {
    for (const name of ['ticker', '_private', 'match', 'type', 'größe'])
      expect(isPythonKeywordArgument(name)).toBe(true)
  })

  it('rejects keywords and non-identifiers', () => {
    for (const name of ['class', 'None', 'lambda', 'max-results', '2fa', '', 'a b', 'ﬁle']) {
      expect(isPythonKeywordArgument(name)).toBe(false)
    }
  })
})
