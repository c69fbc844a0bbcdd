// @tier integration
// PTC_MCP_STEPS=1 (the bench's --steps view, src/shared/steps.ts): serve prints each tools/call's
// timed steps on stderr once the answer is written, the child's among them, in order; off (the
// default), nothing is printed and nothing reaches the client either way.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type Steps, STEPS_PREFIX} from '../../src/shared/steps.js'
import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {execute} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const stepsLines = (stderr: string): Steps[] =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith(STEPS_PREFIX))
    .map((line) => (JSON.parse(line.slice(STEPS_PREFIX.length)) as {steps: Steps}).steps)

/** The steps of print(1), in the order they happen (legacy era; the modern one has no `outcome` marks). */
const PROGRAM_STEPS = [
  'request read',
  'handler',
  'engine',
  'child taken',
  'sending run',
  'child: woke',
  'child: run read',
  'child: session/ ready',
  'child: compiled',
  'child: preflight',
  'child: program',
  'child: output ended',
  'child: out/ sent',
  'child: session/ sent',
  'child: done written',
  'done read',
  'output complete',
  'run ended',
]

let setup: ServeSetup
beforeAll(() => {
  setup = prepareServe({servers: [], execution: {warm_pool: 1}})
})
afterAll(() => setup?.cleanup())

for (const modern of [false, true]) {
  describe(modern ? 'the 2026-07-28 protocol' : 'the 2025 protocol', () => {
    let on: RawServe
    let off: RawServe
    beforeAll(async () => {
      const started = await Promise.all(
        ['1', '0'].map((value) =>
          startRawServe({...setup, env: {...setup.env, PTC_MCP_STEPS: value}}, {modern}),
        ),
      )
      on = started[0]!
      off = started[1]!
    }, 60_000)
    afterAll(async () => {
      await Promise.all([on?.kill(), off?.kill()])
    })

    it('on: a program prints its steps on stderr, in order, none before the one before; none reach the client', async () => {
      const run = await execute(on, 'print(1)')
      expect(run.structured.output).toBe('1\n')
      expect(JSON.stringify(run)).not.toMatch(/steps|woke/)
      await expect.poll(() => stepsLines(on.stderr()).length).toBe(1)
      const steps = stepsLines(on.stderr())[0]!
      const names = steps.map(([name]) => name)
      expect(names.filter((name) => PROGRAM_STEPS.includes(name))).toEqual(PROGRAM_STEPS)
      expect(names[0]).toBe('request read')
      expect(names.at(-1)).toBe('sending answer')
      if (!modern) expect(names.slice(-3)).toEqual(['outcome', 'result built', 'sending answer'])
      for (let i = 1; i < steps.length; i++)
        expect(steps[i]![1], names[i]).toBeGreaterThanOrEqual(steps[i - 1]![1])
      // A call that runs no program: the transport's steps and its handler's.
      await on.callTool('list_callable_tools', {})
      await expect.poll(() => stepsLines(on.stderr()).length).toBe(2)
      expect(stepsLines(on.stderr())[1]!.map(([name]) => name)).toEqual([
        'request read',
        'handler',
        'result built',
        'sending answer',
      ])
    })

    it('off: nothing printed, nothing in the answer', async () => {
      const run = await execute(off, 'print(1)')
      expect(run.structured.output).toBe('1\n')
      expect(JSON.stringify(run)).not.toMatch(/steps|woke/)
      await off.callTool('list_callable_tools', {})
      expect(off.stderr()).not.toContain(STEPS_PREFIX)
    })
  })
}
