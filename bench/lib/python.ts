// The interpreter the SPEC's latency targets are measured against: a bare `python3 -I -S -c pass`.
import {execFileSync} from 'node:child_process'

/** The real interpreter behind `python3` (a pyenv shim is a shell script: not what to time). */
export function realPython(): string {
  return execFileSync('python3', ['-c', 'import os, sys; print(os.path.realpath(sys.executable))'], {
    encoding: 'utf8',
  }).trim()
}

/**
 * Starts of a bare `python -I -S -c pass`, timed by a small Python process with posix_spawn and
 * waitpid: the interpreter's own start, without the cost of forking this (larger) Node process.
 */
export function bareStartSamples(python: string, samples: number): number[] {
  const harness = [
    'import json, os, sys, time',
    'exe, n = sys.argv[1], int(sys.argv[2])',
    'times = []',
    'for i in range(n + 3):',
    '    t = time.perf_counter()',
    '    pid = os.posix_spawn(exe, [exe, "-I", "-S", "-c", "pass"], {})',
    '    _, status = os.waitpid(pid, 0)',
    '    if status != 0: sys.exit("bare start failed")',
    '    times.append((time.perf_counter() - t) * 1000)',
    'print(json.dumps(times[3:]))',
  ].join('\n')
  return JSON.parse(
    execFileSync(python, ['-I', '-S', '-c', harness, python, String(samples)], {encoding: 'utf8'}),
  ) as number[]
}
