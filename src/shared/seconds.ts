/** `1500` → `1.5s`, `60000` → `60s`: a duration in milliseconds as the messages write it. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`
}
