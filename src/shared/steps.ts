/**
 * Where a program's time goes, step by step (the bench's `--steps` view): opt-in with
 * PTC_MCP_STEPS=1 in serve's environment, read once at start. Off (the default), nothing is
 * recorded and the child is not asked. On, each tools/call's steps are CLOCK_MONOTONIC
 * nanoseconds: serve's (process.hrtime) and the child's (time.perf_counter_ns), which compare
 * across processes on Linux; once the answer is written, serve prints them on stderr as one line
 * `ptc-mcp steps: {"id":...,"steps":[[name, ns], ...]}`. They never reach the client.
 */
import type {RequestId} from '@modelcontextprotocol/server'

import {MAX_STEP_NAME_CHARS, MAX_STEPS, MAX_STEPS_OPEN} from './limits.js'

export const STEPS_ON = process.env.PTC_MCP_STEPS === '1'

/** What a line of steps on serve's stderr begins with. */
export const STEPS_PREFIX = 'ptc-mcp steps: '

/** [name, CLOCK_MONOTONIC nanoseconds], in the order they happened. */
export type Steps = Array<[string, number]>

/** Nanoseconds of CLOCK_MONOTONIC; exact as a number for 104 days of uptime. */
export const stepClock = (): number => Number(process.hrtime.bigint())

/** Adds a step now (nothing when `steps` is undefined: steps are off). */
export function markStep(steps: Steps | undefined, name: string): void {
  if (steps && steps.length < MAX_STEPS) steps.push([name, stepClock()])
}

/** The steps of the tools/call requests being answered, by request id. */
const open = new Map<RequestId, Steps>()

/** A tools/call request was read (the transport calls this only when steps are on). */
export function requestRead(id: RequestId): void {
  if (open.size < MAX_STEPS_OPEN) open.set(id, [['request read', stepClock()]])
}

/** The steps of request `id`, to add to (undefined when steps are off). */
export function stepsOf(id: RequestId | undefined): Steps | undefined {
  return id === undefined ? undefined : open.get(id)
}

/** The answer to `id` is about to be serialised and written (the transport calls this only when on). */
export function answerSending(id: RequestId): void {
  markStep(open.get(id), 'sending answer')
}

/**
 * The answer to `id` is written: prints its steps on stderr (the transport calls this only when on).
 * The client may have read it before this runs: the last step is when it went out.
 */
export function answerSent(id: RequestId, write = (line: string) => process.stderr.write(line)): void {
  const steps = open.get(id)
  if (!steps) return
  open.delete(id)
  write(`${STEPS_PREFIX}${JSON.stringify({id, steps})}\n`)
}

/**
 * The child's steps from its `done` message: at most `room` [name, ns] pairs, each a short name
 * and a safe integer; anything else is dropped (the child is not trusted).
 */
export function childSteps(value: unknown, room: number): Steps {
  if (!Array.isArray(value)) return []
  const steps: Steps = []
  for (const entry of value.slice(0, Math.max(0, room))) {
    if (!Array.isArray(entry) || entry.length !== 2) return []
    const [name, ns] = entry as unknown[]
    if (typeof name !== 'string' || name.length > MAX_STEP_NAME_CHARS || !Number.isSafeInteger(ns)) return []
    steps.push([`child: ${name}`, ns as number])
  }
  return steps
}
