// The --steps view: where a trivial program's time goes, per step. serve is started with
// PTC_MCP_STEPS=1 and prints each tools/call's steps on stderr (src/shared/steps.ts); the client
// adds its own send and receive times (all CLOCK_MONOTONIC nanoseconds, comparable across processes).
import {type Steps, STEPS_PREFIX} from '../../src/shared/steps.js'
import {summarize} from './stats.js'

/** The steps lines serve wrote to stderr, in order. */
export function stepsLines(stderr: string): Steps[] {
  const found: Steps[] = []
  for (const line of stderr.split('\n')) {
    if (!line.startsWith(STEPS_PREFIX)) continue
    found.push((JSON.parse(line.slice(STEPS_PREFIX.length)) as {steps: Steps}).steps)
  }
  return found
}

/** One step to the next, as a name, and its median in µs over the samples that have it. */
export interface StepMedian {
  step: string
  medianUs: number
  n: number
}

/**
 * Per-step medians: each sample is the time between consecutive steps; steps are matched by name
 * (a step missing from a sample leaves that sample out of its row). The last row is the whole.
 */
export function stepMedians(samples: readonly Steps[]): StepMedian[] {
  const order: string[] = []
  const times = new Map<string, number[]>()
  const totals: number[] = []
  for (const steps of samples) {
    for (let i = 1; i < steps.length; i++) {
      const step = `${steps[i - 1]![0]} → ${steps[i]![0]}`
      if (!times.has(step)) {
        times.set(step, [])
        order.push(step)
      }
      times.get(step)!.push((steps[i]![1] - steps[i - 1]![1]) / 1000)
    }
    if (steps.length > 1) totals.push((steps.at(-1)![1] - steps[0]![1]) / 1000)
  }
  const rows = order.map((step) => {
    const us = times.get(step)!
    return {step, medianUs: summarize(us).median, n: us.length}
  })
  if (totals.length > 0) rows.push({step: 'whole', medianUs: summarize(totals).median, n: totals.length})
  return rows
}

export function stepsTable(title: string, rows: readonly StepMedian[]): string {
  const width = Math.max(...rows.map((row) => row.step.length), 4)
  return [
    title,
    `${'step'.padEnd(width)}  median µs`,
    ...rows.map((row) => `${row.step.padEnd(width)}  ${row.medianUs.toFixed(0).padStart(9)}`),
  ].join('\n')
}
