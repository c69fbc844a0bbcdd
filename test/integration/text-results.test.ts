/**
 * Tool results that are one text item reach the program unparsed by the server (`JsonText`): the
 * child receives the raw text after a header line and applies SPEC §6 "one text item → JSON if it
 * parses, else the string" itself. Real Python children, sandbox `none`.
 */
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import {ToolRegistry} from '../../src/downstream/registry.js'
import {JsonText, type ToolHost} from '../../src/downstream/types.js'
import {ProgramEngine} from '../../src/execution/engine/engine.js'
import {closeTestEngines, createTestEngine} from '../helpers/engine.js'
import {LocalHost, type LocalTool} from '../helpers/local-host.js'
import {startFixtureRegistry} from '../helpers/registry.js'

afterAll(closeTestEngines)

function createEngine(host: ToolHost): Promise<ProgramEngine> {
  return createTestEngine(host, {timeout_seconds: 30, warm_pool: 1})
}

/** A host whose `text` tool answers with its `text` argument as a lone text item. */
function textHost(extra: Record<string, LocalTool> = {}): LocalHost {
  return new LocalHost({text: (args) => new JsonText(String(args.text)), ...extra})
}

describe('a lone text result, parsed by the child', () => {
  test('is its JSON when it parses, else the text itself', async () => {
    const engine = await createEngine(textHost())
    const outcome = await engine.run(
      [
        'for t in ["{\\"a\\": [1, 2.5, null]}", "  42  ", "\\"quoted\\"", "plain words", "", "NaN", "[1,", "é €"]:',
        '    print(repr(await mcp__local__text(text=t)))',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    expect(outcome.output.split('\n').slice(0, -1)).toEqual([
      "{'a': [1, 2.5, None]}",
      '42',
      "'quoted'",
      "'plain words'",
      "''",
      // Python's json accepts NaN; JSON does not: it stays text.
      "'NaN'",
      "'[1,'",
      "'é €'",
    ])
  })

  test('a text of megabytes arrives intact, multi-byte characters and surrogate pairs included', async () => {
    // Characters of 1 to 4 UTF-8 bytes, with emoji (surrogate pairs in JavaScript) landing on every
    // possible offset, so some straddle the server's slice boundaries.
    const unit = 'a€😀é😀bc'
    const big = unit.repeat(200_000)
    const engine = await createEngine(textHost({big: () => new JsonText(big)}))
    const outcome = await engine.run(
      [
        'import hashlib',
        'r = await mcp__local__big()',
        'print(len(r), hashlib.sha256(r.encode()).hexdigest())',
      ].join('\n'),
    )
    const {createHash} = await import('node:crypto')
    const expected = `${[...big].length} ${createHash('sha256').update(big).digest('hex')}\n`
    expect(outcome.error).toBeNull()
    expect(outcome.output).toBe(expected)
  })

  test('results sent while a large text is on its way keep their own values', async () => {
    const big = JSON.stringify(Array.from({length: 100_000}, (_, i) => ({i})))
    const engine = await createEngine(textHost({big: () => new JsonText(big)}))
    const outcome = await engine.run(
      [
        'import asyncio',
        'rows, *small = await asyncio.gather(mcp__local__big(), *[mcp__local__text(text=str(i)) for i in range(20)])',
        'print(len(rows), rows[-1], small)',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    expect(outcome.output).toBe(
      `100000 {'i': 99999} ${JSON.stringify(Array.from({length: 20}, (_, i) => i)).replaceAll(',', ', ')}\n`,
    )
  })
})

describe('through the real registry', () => {
  let registry: ToolRegistry

  beforeAll(async () => {
    registry = await startFixtureRegistry()
  })

  afterAll(async () => {
    await registry.close()
  })

  test('callTool defers only when asked, and only a lone text item', async () => {
    const options = {timeoutMs: 10_000, maxResultBytes: 1_000_000}
    const deferred = await registry.callTool(
      'mcp__fixture__echo',
      {text: '[1, 2]'},
      {...options, deferTextParsing: true},
    )
    expect(deferred).toEqual(new JsonText('[1, 2]'))
    expect(await registry.callTool('mcp__fixture__echo', {text: '[1, 2]'}, options)).toEqual([1, 2])
    // Structured content keeps the parsing rules of the server side.
    expect(
      await registry.callTool('mcp__fixture__add', {a: 1, b: 2}, {...options, deferTextParsing: true}),
    ).toEqual({
      sum: 3,
    })
  })

  test('a program gets the same values as before: JSON or text', async () => {
    const engine = await createEngine(registry)
    const outcome = await engine.run(
      [
        'print(repr(await mcp__fixture__echo(text="{\\"k\\": [true]}")))',
        'print(repr(await mcp__fixture__echo(text="hello", upper=True)))',
        'r = await mcp__fixture__big(bytes=300000)',
        'print(len(r), set(r))',
      ].join('\n'),
    )
    expect(outcome.error).toBeNull()
    expect(outcome.output).toBe("{'k': [True]}\n'HELLO'\n300000 {'x'}\n")
  })
})
