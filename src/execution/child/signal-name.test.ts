// @tier unit
import {constants} from 'node:os'
import {describe, expect, it} from 'vitest'

import {signalName} from './signal-name.js'

describe('signalName', () => {
  it('names a signal by its number, the first of its names', () => {
    expect(signalName(constants.signals.SIGKILL)).toBe('SIGKILL')
    expect(signalName(constants.signals.SIGXCPU)).toBe('SIGXCPU')
    // SIGIOT is another name of the same number.
    expect(signalName(constants.signals.SIGABRT)).toBe('SIGABRT')
  })

  it('names nothing for a number no signal has', () => {
    expect(signalName(0)).toBeUndefined()
    expect(signalName(999)).toBeUndefined()
  })
})
