// @tier integration
/**
 * What a saved program declares, read by analyze.py with the real Python (SPEC §17): its
 * parameters as a JSON Schema, an annotation that has none named with its line, the tools it
 * calls; and the catalogue of several directories, where the first found wins.
 */
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {testPythonInfo} from '../../test/helpers/engine.js'
import {analyzePrograms} from './analyze.js'
import {loadPrograms} from './catalogue.js'

const analyze = async (source: string) => {
  const [found] = await analyzePrograms((await testPythonInfo()).executable, [source])
  return found!
}

describe('analyze.py: a program read without running it', () => {
  const root = mkdtempSync(join(tmpdir(), 'ptc-analyze-'))
  afterAll(() => rmSync(root, {recursive: true, force: true}))

  it("turns main()'s annotations and defaults into a JSON Schema", async () => {
    const found = await analyze(
      [
        'from __future__ import annotations',
        'from typing import Literal, Optional',
        '"""not the docstring: after an import"""',
        'async def main(*, n: int, ratio: float = 0.5, on: bool = False, tags: list[str] | None = None,',
        '               counts: dict[str, int] = {}, mode: Literal["a", "b"] = "a", who: Optional[str] = None,',
        '               levels: "list[Literal[1, 2]]" = [1]):',
        '    return n',
      ].join('\n'),
    )
    expect(found.problem).toBeUndefined()
    expect(found.callsMain).toBe(true)
    expect(found.docstring).toBeNull()
    expect(found.inputSchema).toEqual({
      type: 'object',
      properties: {
        n: {type: 'integer'},
        ratio: {type: 'number', default: 0.5},
        on: {type: 'boolean', default: false},
        tags: {type: ['array', 'null'], items: {type: 'string'}, default: null},
        counts: {type: 'object', additionalProperties: {type: 'integer'}, default: {}},
        mode: {type: 'string', enum: ['a', 'b'], default: 'a'},
        who: {type: ['string', 'null'], default: null},
        levels: {type: 'array', items: {type: 'integer', enum: [1, 2]}, default: [1]},
      },
      additionalProperties: false,
      required: ['n'],
    })
  })

  it('names the line of an annotation it cannot turn into a schema, and of positional parameters', async () => {
    const set = await analyze(
      '"""Doc."""\n\nasync def main(*, n: int,\n               s: set[int]):\n    pass\n',
    )
    expect(set.problem).toBe(
      'line 4: cannot turn the annotation `set[int]` into a JSON Schema: write str, int, float, bool, list[T], dict[str, T], Literal[...] or T | None',
    )
    expect((await analyze('async def main(a, *, b: int):\n    pass\n')).problem).toMatch(
      /^line 1: main takes keyword-only parameters/,
    )
    expect((await analyze('async def main(*, x):\n    pass\n')).problem).toMatch(
      /^line 1: parameter 'x' has no annotation/,
    )
    expect((await analyze('x = (\n')).problem).toMatch(/^line 1: SyntaxError/)
  })

  it('finds the tools and programs it calls; a module that calls main() itself takes no arguments', async () => {
    const found = await analyze(
      [
        '"""Counts.\n\nMore."""',
        'import asyncio',
        'async def main():',
        '    a = await mcp__fx__list_issues()',
        '    b = await run_program("other", n=1)',
        '    c = await mcp__fx__list_issues()',
        'asyncio.run(main())',
      ].join('\n'),
    )
    expect(found).toMatchObject({
      docstring: 'Counts.\n\nMore.',
      tools: ['mcp__fx__list_issues'],
      programs: ['other'],
      dynamicPrograms: false,
      callsMain: false,
      inputSchema: {type: 'object', properties: {}},
    })
    expect((await analyze('name = "x"\nawait run_program(name)\n')).dynamicPrograms).toBe(true)
  })

  it('reads several directories: the first found wins, other names are skipped', async () => {
    const first = join(root, 'first')
    const second = join(root, 'second')
    mkdirSync(first)
    mkdirSync(second)
    writeFileSync(join(first, 'same.py'), '"""First."""\n')
    writeFileSync(join(second, 'same.py'), '"""Second."""\n')
    writeFileSync(join(second, 'Bad-Name.py'), '')
    const catalogue = await loadPrograms(
      [
        {dir: first, scope: 'project'},
        {dir: second, scope: 'user'},
        {dir: join(root, 'missing'), scope: 'config'},
      ],
      (await testPythonInfo()).executable,
    )
    expect([...catalogue.programs.values()].map((p) => [p.name, p.description, p.scope])).toEqual([
      ['same', 'First.', 'project'],
    ])
    expect(catalogue.shadowed).toEqual([
      {name: 'same', path: join(second, 'same.py'), by: join(first, 'same.py')},
    ])
    expect(catalogue.skipped).toEqual([
      {path: join(second, 'Bad-Name.py'), reason: expect.stringMatching(/not a program name/)},
    ])
  })
})
