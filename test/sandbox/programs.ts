/**
 * Python building blocks of the escape suite. Every program prints one line per step,
 * `label: refused (...)`, `label: ALLOWED ...` or `label: ok`, and `verdicts()` reads them back.
 */

/** Helpers every escape program starts with: `attempt` (must fail) and `control` (must work). */
export const HELPERS = String.raw`
import ctypes, errno, os, platform, sys

def attempt(label, action):
    try:
        value = action()
    except BaseException as exc:
        print(f"{label}: refused ({type(exc).__name__}: {exc})", flush=True)
    else:
        print(f"{label}: ALLOWED {value!r:.100}", flush=True)

def control(label, action):
    try:
        action()
    except BaseException as exc:
        print(f"{label}: FAILED ({type(exc).__name__}: {exc})", flush=True)
    else:
        print(f"{label}: ok", flush=True)
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

export type Verdict = 'refused' | 'ALLOWED' | 'ok' | 'FAILED'

/** label -> verdict, from the output of a program built on PRELUDE. */
export function verdicts(output: string): Map<string, Verdict> {
  const found = new Map<string, Verdict>()
  for (const line of output.split('\n')) {
    const match = /^(.+?): (refused|ALLOWED|ok|FAILED)\b/.exec(line)
    if (match?.[1] && match[2]) found.set(match[1], match[2] as Verdict)
  }
  return found
}

/** A Python string literal for `value`. */
export function py(value: string | number): string {
  return JSON.stringify(value)
}
