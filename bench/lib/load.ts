// `--load N`: N busy loops beside the run (SPEC §11 "the load during the run"), to see how a
// figure such as the 16 MiB row holds up on a loaded machine. Each loop is a bare Python process
// that spins; it also leaves on its own once its parent is gone, so a bench that is killed leaves
// nothing spinning.
import {type ChildProcess, spawn} from 'node:child_process'
import {once} from 'node:events'

/**
 * Spins, looking every million turns whether the bench (its argument: not read from getppid at
 * start, as the bench may already be gone by then) is still its parent.
 */
const LOOP = [
  'import os, sys',
  'parent = int(sys.argv[1])',
  'while os.getppid() == parent:',
  '    for _ in range(1_000_000):',
  '        pass',
].join('\n')

export class BusyLoops {
  private readonly children: ChildProcess[] = []

  /** Starts `count` loops with `python` (the bench's interpreter). */
  constructor(python: string, count: number) {
    if (!Number.isInteger(count) || count < 0) throw new Error(`--load: a count of busy loops, not ${count}`)
    for (let i = 0; i < count; i++)
      this.children.push(spawn(python, ['-I', '-S', '-c', LOOP, String(process.pid)], {stdio: 'ignore'}))
    process.once('exit', () => this.killAll())
  }

  get pids(): number[] {
    return this.children.map((child) => child.pid).filter((pid) => pid !== undefined)
  }

  /** Kills every loop and waits until each has exited. */
  async stop(): Promise<void> {
    const exits = this.children
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map((child) => once(child, 'exit'))
    this.killAll()
    await Promise.all(exits)
  }

  private killAll(): void {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL')
  }
}
