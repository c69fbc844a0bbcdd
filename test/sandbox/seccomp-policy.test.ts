// @tier sandbox
import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {describe, expect, test} from 'vitest'

import {CONFINE_MODULE} from '../../src/sandbox/linux/index.js'
import {runWithConfine, testPython} from './harness.js'

const EMULATOR = fileURLToPath(new URL('seccomp_emulator.py', import.meta.url))

describe('the seccomp filter confine.py builds', () => {
  test('decides as the policy says on x86_64 and aarch64 (run in a BPF interpreter)', () => {
    const stdout = execFileSync(testPython(), ['-I', '-S', '-B', EMULATOR, CONFINE_MODULE], {
      encoding: 'utf8',
    })
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
      arches: string[]
      checked: number
      failures: string[]
    }
    expect(report.arches).toEqual(['x86_64', 'aarch64'])
    expect(report.failures).toEqual([])
    expect(report.checked).toBeGreaterThan(300)
  })

  test('refuses an architecture it has no table for', () => {
    const stdout = runWithConfine([
      'try:',
      '    c.build_seccomp_filter("riscv64", 1)',
      'except c.ConfineError as e:',
      '    print("refused:", e)',
    ])
    expect(stdout).toMatch(/^refused: seccomp: no syscall table for architecture 'riscv64'/)
  })
})
