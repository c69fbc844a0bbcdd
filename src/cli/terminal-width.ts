/** Columns assumed when a terminal reports none (a serial console, some containers, `stty cols 0`). */
export const FALLBACK_COLUMNS = 80

/**
 * A terminal that reports 0 columns would have listr2 wrap its progress one character per line
 * (it reads `process.stdout.columns`): give such streams a usable width. Resizing sets it again.
 */
export function ensureTerminalWidth(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) if (stream.isTTY && !(stream.columns > 0)) stream.columns = FALLBACK_COLUMNS
}
