const KiB = 1024
const MiB = 1024 * 1024

/** `300 bytes`, `4.5 KiB`, `16 MiB`: a byte count as the model and the user read it. */
export function formatBytes(bytes: number): string {
  if (bytes < KiB) return `${bytes} bytes`
  if (bytes < MiB) return `${Number((bytes / KiB).toFixed(1))} KiB`
  return `${Number((bytes / MiB).toFixed(1))} MiB`
}

/** `64 KiB`, `16 MiB`, or `100000 bytes`: a limit, exactly (a rounded one would misstate it). */
export function formatByteLimit(bytes: number): string {
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`
  if (bytes % KiB === 0) return `${bytes / KiB} KiB`
  return `${bytes} bytes`
}

/** `48.1 KB`, `3.2 MB`: the units of the trace line (SPEC §8), as the Python original writes them. */
export function formatTraceBytes(bytes: number): string {
  if (bytes < MiB) return `${(bytes / KiB).toFixed(1)} KB`
  return `${(bytes / MiB).toFixed(1)} MB`
}
