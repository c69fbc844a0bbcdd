/**
 * What a stdio server wrote to stderr, kept to say why it failed. The last line is often a
 * runtime's banner (`Node.js v20.20.2`) or the end of a stack; the first line that reads as an
 * error (`Error: Cannot find module 'x'`, `ModuleNotFoundError: ...`, `panic: ...`) says why.
 */

/** Last lines kept, besides the first error line. */
const TAIL_LINES = 5

/** `Error: ...`, `TypeError: ...`, `ModuleNotFoundError: ...`, `error: ...`, `fatal: ...`, `panic: ...`, Rust's `thread 'main' panicked at`. */
const ERROR_LINE =
  /^\s*(?:[\w.$]*(?:Error|Exception)\b[^:]*:|(?:error|fatal|panic)\b\s*[:[]|thread '[^']*' panicked|npm (?:error|ERR!) (?!code\b))/i
/** A line of a stack or traceback: indented (`    at f (x.js:1:2)`, `  File "x.py", line 3`), or Go's. */
const FRAME = /^\s|^goroutine \d+ \[|\.go:\d+/
/** Lines that never explain anything: a runtime's version banner, bare stack punctuation. */
const NOISE = /^\s*(?:Node\.js v\d+\.\d+\.\d+|[{}^]|\^+)\s*$/

interface Line {
  line: string
  at: number
}

export class StderrRecord {
  private tail: Line[] = []
  private firstError: Line | undefined

  add(line: string, at = Date.now()): void {
    if (this.firstError === undefined && ERROR_LINE.test(line)) this.firstError = {line: line.trim(), at}
    this.tail.push({line, at})
    if (this.tail.length > TAIL_LINES) this.tail.shift()
  }

  /** Forgets everything (a new connection attempt). */
  clear(): void {
    this.tail = []
    this.firstError = undefined
  }

  /** The line that best says why the server failed, among those written since `since` (ms epoch). */
  reason(since = 0): string | undefined {
    if (this.firstError && this.firstError.at >= since) return this.firstError.line
    const recent = this.tail.filter((entry) => entry.at >= since && !NOISE.test(entry.line))
    // Without an error line, the end of a stack says less than the line before it.
    return (recent.findLast((entry) => !FRAME.test(entry.line)) ?? recent.at(-1))?.line.trim()
  }
}
