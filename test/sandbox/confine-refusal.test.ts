// @tier sandbox
import {describe, expect, test} from 'vitest'

import {runWithConfine} from './harness.js'

/** Loads confine.py in a throwaway interpreter, breaks one kernel facility, and calls apply(). */
function applyWith(patch: string, spec: Record<string, unknown>): string {
  return runWithConfine([
    patch,
    'try:',
    `    c.apply(json.loads(${JSON.stringify(JSON.stringify(spec))}))`,
    '    print("applied")',
    'except c.ConfineError as e:',
    '    print("refused:", e)',
  ])
}

describe.skipIf(process.platform !== 'linux')('confine.py refuses to run unconfined', () => {
  test('without Landlock, when nothing else hides the file system, it refuses and says how to fix it', () => {
    const out = applyWith('c.landlock_abi = lambda: 0', {
      landlock: {required: true, readOnly: [], readWrite: []},
    })
    expect(out).toMatch(/^refused: Landlock is not available: .*Linux >= 5\.13.*install bubblewrap/)
  })

  test('without seccomp it refuses, whatever else is there', () => {
    const patch = [
      'real = c._prctl',
      'def prctl(option, *args):',
      '    if option == c._PR_GET_SECCOMP:',
      '        raise OSError(22, "Invalid argument")',
      '    return real(option, *args)',
      'c._prctl = prctl',
    ].join('\n')
    const out = applyWith(patch, {landlock: {required: false}})
    expect(out).toMatch(/^refused: seccomp is not available in this kernel/)
  })

  test('a spec that is not an object is refused', () => {
    const out = runWithConfine([
      'try:',
      '    c.apply([])',
      'except c.ConfineError as e:',
      '    print("refused:", e)',
    ])
    expect(out).toMatch(/^refused: confine spec must be an object/)
  })
})
