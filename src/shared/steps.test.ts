// @tier unit
import {describe, expect, it} from 'vitest'

import {MAX_STEPS, MAX_STEPS_OPEN} from './limits.js'
import {answerSending, answerSent, childSteps, markStep, requestRead, type Steps, stepsOf} from './steps.js'

describe('childSteps', () => {
  it('keeps [name, ns] pairs, named as the child’s', () => {
    expect(
      childSteps(
        [
          ['woke', 5],
          ['program', 9],
        ],
        10,
      ),
    ).toEqual([
      ['child: woke', 5],
      ['child: program', 9],
    ])
  })

  it('takes at most the room left', () => {
    expect(
      childSteps(
        [
          ['a', 1],
          ['b', 2],
          ['c', 3],
        ],
        2,
      ),
    ).toHaveLength(2)
    expect(childSteps([['a', 1]], 0)).toEqual([])
  })

  it('drops anything a hostile child could send instead', () => {
    for (const forged of [
      null,
      'woke',
      {woke: 1},
      [['woke']],
      [['woke', 1.5]],
      [['woke', '1']],
      [[1, 1]],
      [['x'.repeat(41), 1]],
      [['woke', 2 ** 60]],
    ])
      expect(childSteps(forged, 10), JSON.stringify(forged)).toEqual([])
  })
})

describe('steps of a request', () => {
  it('are printed once when its answer is written, then forgotten', () => {
    requestRead(7)
    markStep(stepsOf(7), 'handler')
    const lines: string[] = []
    answerSending(7)
    answerSent(7, (line) => Boolean(lines.push(line)))
    answerSent(7, (line) => Boolean(lines.push(line)))
    expect(lines).toHaveLength(1)
    const {id, steps} = JSON.parse(lines[0]!.slice(lines[0]!.indexOf('{'))) as {id: number; steps: Steps}
    expect(id).toBe(7)
    expect(steps.map(([name]) => name)).toEqual(['request read', 'handler', 'sending answer'])
    expect(stepsOf(7)).toBeUndefined()
  })

  it('stop at MAX_STEPS', () => {
    const steps: Steps = []
    for (let i = 0; i < MAX_STEPS + 5; i++) markStep(steps, 'x')
    expect(steps).toHaveLength(MAX_STEPS)
  })

  it('hold at most MAX_STEPS_OPEN requests never answered', () => {
    const ids = Array.from({length: MAX_STEPS_OPEN + 1}, (_, i) => `unanswered-${i}`)
    for (const id of ids) requestRead(id)
    expect(stepsOf(ids[MAX_STEPS_OPEN - 1])).toBeDefined()
    expect(stepsOf(ids[MAX_STEPS_OPEN])).toBeUndefined()
    for (const id of ids) answerSent(id, () => true)
    expect(stepsOf(ids[0])).toBeUndefined()
  })
})
