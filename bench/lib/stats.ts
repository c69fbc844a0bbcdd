// Summaries of timing samples: pure, so the report and the tests agree on what a median is.

export interface Summary {
  n: number
  median: number
  p90: number
  min: number
  max: number
}

/** Median (mean of the middle two for an even count), nearest-rank p90, min and max. */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error('no samples to summarize')
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (i: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, i))]!
  const mid = Math.floor(sorted.length / 2)
  const median = sorted.length % 2 === 0 ? (at(mid - 1) + at(mid)) / 2 : at(mid)
  return {
    n: sorted.length,
    median,
    p90: at(Math.ceil(0.9 * sorted.length) - 1),
    min: at(0),
    max: at(sorted.length - 1),
  }
}
