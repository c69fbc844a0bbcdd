import {z} from 'zod'

import {MAX_TIMER_SECONDS} from '../shared/limits.js'

/** The zod pieces the config's sections share (schema.ts, transports.ts, program-limits.ts). */

export const positiveInt = (description: string, max?: number) => {
  const base = z.number().int().positive()
  return (max === undefined ? base : base.max(max)).describe(description)
}

/** A duration key (`*_seconds`): positive, and no longer than a timer can wait (MAX_TIMER_SECONDS). */
export const positiveSeconds = (description: string) =>
  z.number().positive().max(MAX_TIMER_SECONDS).describe(description)

export const stringMap = (description: string) => z.record(z.string(), z.string()).describe(description)

export const toolPatterns = (description: string) => z.array(z.string().min(1)).describe(description)

/** Whether `value` is an absolute http:// or https:// URL. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false
  const {protocol} = new URL(value)
  return protocol === 'http:' || protocol === 'https:'
}
