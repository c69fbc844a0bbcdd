// @tier unit
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {programNameProblem} from './names.js'
import {removeProgram, saveProgram, withDocstring} from './save.js'

describe('saving a program (SPEC §17)', () => {
  const dirs: string[] = []
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-save-unit-'))
    dirs.push(dir)
    return join(dir, 'programs')
  }
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
  })

  it('gives a program without a docstring its description as one, and keeps its own otherwise', () => {
    expect(withDocstring('print(1)', 'Prints one.')).toBe('"""Prints one."""\n\nprint(1)\n')
    expect(withDocstring('"""Mine."""\nprint(1)\n', 'Other.')).toBe('"""Mine."""\nprint(1)\n')
    expect(withDocstring('print(1)\n', 'Say """hi""" \\o/')).toBe(
      '"""Say \\"\\"\\"hi\\"\\"\\" \\\\o/"""\n\nprint(1)\n',
    )
    expect(withDocstring('print(1)')).toBe('print(1)\n')
  })

  it('writes the program and its recording, never over an existing one without replace', () => {
    const dir = fresh()
    const saved = saveProgram({dir, name: 'count', code: 'print(1)', recording: '{"calls": []}'})
    expect(readFileSync(saved.path, 'utf8')).toBe('print(1)\n')
    expect(readFileSync(saved.recordingPath!, 'utf8')).toBe('{"calls": []}')
    expect(() => saveProgram({dir, name: 'count', code: 'print(2)'})).toThrow(/a program named count exists/)
    expect(readFileSync(saved.path, 'utf8')).toBe('print(1)\n')
    saveProgram({dir, name: 'count', code: 'print(2)', replace: true})
    expect(readFileSync(saved.path, 'utf8')).toBe('print(2)\n')
    // A program saved without a recording has none: an old one would replay another program.
    expect(existsSync(saved.recordingPath!)).toBe(false)
    expect(readdirSync(dir)).toEqual(['count.py'])
    expect(removeProgram(dir, 'count')).toBe(true)
    expect(removeProgram(dir, 'count')).toBe(false)
  })

  it("refuses names that are no program name, and the names of serve's own tools", () => {
    expect(() => saveProgram({dir: fresh(), name: 'Bad-Name', code: ''})).toThrow(/not a program name/)
    expect(programNameProblem('execute_program')).toMatch(/serve's own tools/)
    expect(programNameProblem('mcp__x__y')).toMatch(/downstream tool/)
    expect(programNameProblem('count_items2')).toBeUndefined()
  })
})
