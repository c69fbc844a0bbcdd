import {mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, test} from 'vitest'

import {PtcError} from '../../shared/errors.js'
import {resolvePython} from './python.js'

const PYTHON = process.env.PTC_MCP_TEST_PYTHON ?? 'python3'

describe('resolvePython', () => {
  test('finds the real interpreter, its version and its standard library', async () => {
    const info = await resolvePython(PYTHON)
    expect(realpathSync(info.executable)).toBe(info.executable)
    expect(info.version).toMatch(/^3\.(1\d|[2-9]\d)\.\d+$/)
    expect(info.prefixes.length).toBeGreaterThan(0)
    expect(info.stdlibPaths.some((path) => info.prefixes.some((prefix) => path.startsWith(prefix)))).toBe(
      true,
    )
  })

  test('asks the interpreter once per command', async () => {
    expect(resolvePython(PYTHON)).toBe(resolvePython(PYTHON))
  })

  test('a missing interpreter is a PYTHON_NOT_FOUND error with a fix, and is not cached', async () => {
    const missing = '/nonexistent/python3-ptc-test'
    const first = resolvePython(missing)
    const error = await first.catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(PtcError)
    expect(error).toMatchObject({code: 'PYTHON_NOT_FOUND', message: expect.stringMatching(/was not found/)})
    expect((error as PtcError).suggestion).toMatch(/execution\.python/)
    const second = resolvePython(missing)
    second.catch(() => {})
    expect(second).not.toBe(first)
  })

  test('a Python too old for the probe (Python 2 rejects -I) is reported as too old, from --version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptc-python2-'))
    try {
      const python2 = join(dir, 'python2')
      writeFileSync(
        python2,
        '#!/bin/sh\ncase "$1" in\n  --version) echo "Python 2.7.18" >&2 ;;\n  *) echo "Unknown option: $1" >&2; exit 2 ;;\nesac\n',
        {mode: 0o755},
      )
      const error = await resolvePython(python2).catch((error_: unknown) => error_)
      expect(error).toMatchObject({
        code: 'PYTHON_NOT_FOUND',
        message: `Python 2.7.18 at "${python2}" is too old: programs need Python >= 3.10`,
      })
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  test('a program that is not Python is refused', async () => {
    const error = await resolvePython('/bin/false').catch((error_: unknown) => error_)
    expect(error).toMatchObject({code: 'PYTHON_NOT_FOUND'})
  })
})
