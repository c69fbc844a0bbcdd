// @tier unit
import {describe, expect, it} from 'vitest'

import {describeExit} from './process.js'

describe('describeExit', () => {
  it('names the CPU limit for SIGXCPU, seen directly or through a wrapper (128 + 24)', () => {
    const named =
      'hit its CPU time limit (12 s of CPU time: execution.timeout_seconds + 2; CPU time counts on while an approval question stops the clock)'
    expect(describeExit({code: null, signal: 'SIGXCPU'}, 12)).toBe(named)
    expect(describeExit({code: 152, signal: null}, 12)).toBe(named)
    expect(describeExit({code: null, signal: 'SIGXCPU'})).toBe('hit its CPU time limit')
  })

  it('says what else ended the process', () => {
    expect(describeExit({code: 137, signal: null}, 12)).toBe('exited with code 137 (killed by SIGKILL?)')
    expect(describeExit({code: null, signal: 'SIGKILL'})).toBe('was killed by SIGKILL')
    expect(describeExit({code: 1, signal: null})).toBe('exited with code 1')
  })
})
