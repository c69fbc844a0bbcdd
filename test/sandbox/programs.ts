import {readFileSync} from 'node:fs'

import {PROBE_SCRIPT} from '../../src/sandbox/probe.js'

/**
 * Python building blocks of the escape suite. Attempts and controls are judged by the escape
 * probe's own `refused()` and `works()` (src/sandbox/probe.py, whose source every program starts
 * with, as doctor's does), and each step prints one line of the probe's report:
 * `{"refused": {label: bool}, "detail": the refusal or what came back}`, `{"works": {label: bool}}`,
 * or `{"error": {label: text}}` for an attempt that failed for another reason. `verdicts()` and
 * `details()` read them back.
 */

/** Helpers every escape program starts with: `attempt` (must be refused) and `control` (must work). */
export const HELPERS =
  readFileSync(PROBE_SCRIPT, 'utf8') +
  String.raw`
import ctypes, errno, os, platform, sys

def report(part, label, value, detail=None):
    print(json.dumps({part: {label: value}, "detail": detail}), flush=True)

def attempt(label, action, refusal=OSError):
    seen = []
    def act():
        try:
            seen.append(f"{action()!r:.100}")
        except refusal as exc:
            seen.append(f"{type(exc).__name__}: {exc}")
            raise
    try:
        report("refused", label, refused(act, refusal), seen[0])
    except BaseException as exc:
        report("error", label, f"{type(exc).__name__}: {exc}")

def control(label, action):
    try:
        report("works", label, works(action))
    except BaseException as exc:
        report("works", label, False, f"{type(exc).__name__}: {exc}")
`

/** HELPERS plus `raw()`, for Linux syscalls the standard library does not wrap (x86_64, aarch64). */
export const PRELUDE =
  HELPERS +
  String.raw`
_NR = {
    "x86_64": {"clone": 56, "unshare": 272, "mount": 165, "bpf": 321, "io_uring_setup": 425,
               "userfaultfd": 323, "keyctl": 250, "add_key": 248, "ptrace": 101, "setns": 308,
               "process_vm_readv": 310, "pidfd_open": 434, "open_tree": 428, "fsopen": 430,
               "perf_event_open": 298, "kill": 62, "capget": 125},
    "aarch64": {"clone": 220, "unshare": 97, "mount": 40, "bpf": 280, "io_uring_setup": 425,
                "userfaultfd": 282, "keyctl": 219, "add_key": 217, "ptrace": 117, "setns": 268,
                "process_vm_readv": 270, "pidfd_open": 434, "open_tree": 428, "fsopen": 430,
                "perf_event_open": 241, "kill": 129, "capget": 90},
}[platform.machine()]
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

def raw(name, *args):
    ctypes.set_errno(0)
    result = _libc.syscall(ctypes.c_long(_NR[name]), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, f"{name}: {os.strerror(code)}")
    return result
`

export type Verdict = 'refused' | 'ALLOWED' | 'ok' | 'FAILED' | 'ERROR'

interface Step {
  refused?: Record<string, boolean>
  works?: Record<string, boolean>
  error?: Record<string, string>
  detail?: null | number | string
}

/** The report lines of a program built on HELPERS. */
function steps(output: string): Step[] {
  const found: Step[] = []
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      found.push(JSON.parse(line) as Step)
    } catch {
      // a program's own output
    }
  }
  return found
}

/** label -> verdict, from the report lines of a program built on HELPERS. */
export function verdicts(output: string): Map<string, Verdict> {
  const found = new Map<string, Verdict>()
  for (const step of steps(output)) {
    for (const [label, refused] of Object.entries(step.refused ?? {}))
      found.set(label, refused ? 'refused' : 'ALLOWED')
    for (const [label, works] of Object.entries(step.works ?? {})) found.set(label, works ? 'ok' : 'FAILED')
    for (const label of Object.keys(step.error ?? {})) found.set(label, 'ERROR')
  }
  return found
}

/** label -> what an attempt met: its refusal (`PermissionError: ...`) or what it got back. */
export function details(output: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const step of steps(output)) {
    for (const label of Object.keys(step.refused ?? {})) found.set(label, String(step.detail))
  }
  return found
}

/** A Python string literal for `value`. */
export function py(value: string | number): string {
  return JSON.stringify(value)
}
