// A command on a real pseudo-terminal (Python's pty module drives it), for what only a terminal
// shows: listr2 progress, approval questions, Ctrl-C as the terminal delivers it.
import {type Finished, spawnCollect} from './processes.js'

/**
 * Runs argv on a new pseudo-terminal (100 x 24, or PTY_COLUMNS wide). Answers each "Allow it?" (or "Allow these ...?") question with the next
 * of PTY_ANSWERS ("n" when none is left); types Ctrl-C once, as soon as the terminal has shown
 * PTY_INTERRUPT_AFTER and the file PTY_INTERRUPT_WHEN_EXISTS (if set) exists. Prints everything the terminal showed and exits with the command's exit
 * code; kills the command after 120 s.
 */
const PTY_DRIVER = String.raw`
import fcntl, os, pty, re, select, struct, sys, termios, time
answers = [a for a in os.environ.get("PTY_ANSWERS", "").split(",") if a]
interrupt_after = os.environ.get("PTY_INTERRUPT_AFTER", "").encode()
interrupt_file = os.environ.get("PTY_INTERRUPT_WHEN_EXISTS", "")
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(os.environ.get("PTY_COLUMNS", "100")), 0, 0))
out, asked, interrupted, deadline = b"", 0, False, time.time() + 120
while time.time() < deadline:
    if interrupt_after and not interrupted and interrupt_after in out:
        if not interrupt_file or os.path.exists(interrupt_file):
            interrupted = True
            os.write(fd, b"\x03")
    ready, _, _ = select.select([fd], [], [], 0.05 if interrupt_after and not interrupted else 0.5)
    if not ready:
        continue
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
    while len(re.findall(rb"Allow (?:it|these[^?\n]*)\?", out)) > asked:
        asked += 1
        os.write(fd, ((answers.pop(0) if answers else "n") + "\n").encode())
else:
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(status))
`

export interface TerminalOptions {
  /** Answers to "Allow it?" questions, in order. */
  answers?: string[]
  /** Type Ctrl-C once the terminal has shown this text... */
  interruptAfter?: string
  /** ...and this file exists. */
  interruptWhenExists?: string
  /** Width the terminal reports (default 100; 0 as some consoles do). */
  columns?: number
  env?: Record<string, string>
}

/** Runs argv on a pseudo-terminal; stdout is everything the terminal showed (stdout and stderr). */
export function runOnTerminal(
  argv: string[],
  options: TerminalOptions = {},
): {pid: number; done: Promise<Finished>} {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...options.env,
    PTY_ANSWERS: (options.answers ?? []).join(','),
    PTY_INTERRUPT_AFTER: options.interruptAfter ?? '',
    PTY_INTERRUPT_WHEN_EXISTS: options.interruptWhenExists ?? '',
    PTY_COLUMNS: String(options.columns ?? 100),
  }
  return spawnCollect('python3', ['-c', PTY_DRIVER, ...argv], {env, timeoutMs: 150_000})
}
