// P, SPEC §11's fresh process (fresh_process.py): what "each program runs in a process of its own,
// used once" costs on this machine, with no sandbox and no protocol. Its latency after a pause and
// back to back, and its CPU per round (parent + child, getrusage).
import {execFileSync} from 'node:child_process'
import {join} from 'node:path'

import {ROOT} from './paths.js'

const HARNESS = join(ROOT, 'bench', 'lib', 'fresh_process.py')
const RUNNER = join(ROOT, 'src', 'execution', 'runner', 'runner.py')
const CONFINE = join(ROOT, 'src', 'sandbox', 'linux', 'confine.py')

export interface FreshProcess {
  /** Each round: fork → the child's answer read → the child reaped. */
  ms: number[]
  /** CPU per round: the parent's (fork, pipe, wait), the child's (its whole life). */
  parentCpuMs: number
  childCpuMs: number
}

/** `rounds` rounds of P, each `pauseMs` after the one before (0: back to back). */
export function freshProcessSamples(python: string, rounds: number, pauseMs: number): FreshProcess {
  const out = execFileSync(
    python,
    ['-I', '-S', '-B', HARNESS, RUNNER, CONFINE, String(rounds), String(pauseMs)],
    {encoding: 'utf8', timeout: 120_000},
  )
  return JSON.parse(out) as FreshProcess
}
