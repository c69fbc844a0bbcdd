import {posix} from 'node:path'

/** sandbox-exec's fixed location: never looked up on PATH. */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec'

export interface SeatbeltPaths {
  /** Files the sandbox may execute: the interpreter (and a framework build's Python.app stub target). */
  executables: string[]
  /** Read-only trees: the interpreter's prefix and standard library, its libraries, ptc-mcp's runtime files. */
  readOnly: string[]
  /** The scratch dir: the only place that can be written. */
  readWrite: string[]
}

/**
 * macOS system locations every process reads: libSystem and the dyld shared cache (moved to the
 * Cryptexes volume in macOS 13), frameworks, time zone data.
 */
export const SYSTEM_READ_ONLY = [
  '/usr/lib',
  '/System/Library/Frameworks',
  '/System/Library/PrivateFrameworks',
  '/System/Library/dyld',
  '/System/Volumes/Preboot/Cryptexes/OS',
  '/private/var/db/dyld',
  '/private/var/db/timezone',
  '/usr/share/zoneinfo',
  '/private/etc/localtime',
]

/** sysctls the C library and Python read (CPU count, page size, OS version), nothing identifying. */
const SYSCTLS = [
  'hw.activecpu',
  'hw.byteorder',
  'hw.cachelinesize',
  'hw.cputype',
  'hw.logicalcpu',
  'hw.logicalcpu_max',
  'hw.machine',
  'hw.memsize',
  'hw.ncpu',
  'hw.pagesize',
  'hw.pagesize_compat',
  'hw.physicalcpu',
  'hw.physicalcpu_max',
  'kern.argmax',
  'kern.maxfilesperproc',
  'kern.osproductversion',
  'kern.osrelease',
  'kern.ostype',
  'kern.osversion',
  'kern.usrstack64',
  'kern.version',
  'sysctl.proc_cputype',
]
const SYSCTL_PREFIXES = ['hw.optional.', 'hw.perflevel']

/** An SBPL string literal. */
export function sbplString(value: string): string {
  if (value.includes('\0')) throw new Error('a sandbox profile path cannot contain NUL')
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}

/** Every proper ancestor of each path ("/", "/opt", "/opt/homebrew" for "/opt/homebrew/bin"). */
export function ancestors(paths: string[]): string[] {
  const found = new Set<string>()
  for (const path of paths) {
    let current = posix.dirname(posix.normalize(path))
    for (;;) {
      found.add(current)
      if (current === '/') break
      current = posix.dirname(current)
    }
  }
  return [...found].sort()
}

function subpaths(list: string[]): string {
  return list.map((path) => `  (subpath ${sbplString(path)})`).join('\n')
}

function literals(list: string[]): string {
  return list.map((path) => `  (literal ${sbplString(path)})`).join('\n')
}

/**
 * A deny-by-default SBPL profile (SPEC §7 seatbelt): exec of the interpreter only; reads of its
 * files and the system libraries; read/write of the scratch dir only; no network, no fork, no
 * signals but to itself; metadata of other paths hidden (only the ancestors of allowed paths can
 * be stat'ed, so that path resolution works). Paths must be real paths (no symlinks: /var is
 * /private/var), as the kernel checks resolved paths.
 */
export function seatbeltProfile(paths: SeatbeltPaths): string {
  const readOnly = [...new Set([...paths.readOnly, ...SYSTEM_READ_ONLY])]
  const everything = [...readOnly, ...paths.readWrite, ...paths.executables]
  return [
    '(version 1)',
    '(deny default)',
    '',
    '; the interpreter, and nothing else, may be executed; no fork',
    `(allow process-exec\n${literals(paths.executables)})`,
    '',
    '; reads: the interpreter, its libraries, the runtime files, the system libraries',
    `(allow file-read*\n${literals(paths.executables)}\n${subpaths(readOnly)})`,
    '',
    '; the scratch dir is the only writable place',
    `(allow file-read* file-write*\n${subpaths(paths.readWrite)})`,
    '',
    '; other paths stay hidden: only the directories on the way to allowed ones can be looked up',
    `(allow file-read-metadata\n${literals(ancestors(everything))})`,
    '',
    '(allow file-read* file-write-data (literal "/dev/null"))',
    '(allow file-read* (literal "/dev/urandom") (literal "/dev/random"))',
    '',
    '(allow process-info* (target self))',
    '(allow signal (target self))',
    `(allow sysctl-read\n${SYSCTLS.map((name) => `  (sysctl-name ${sbplString(name)})`).join('\n')}\n${SYSCTL_PREFIXES.map((prefix) => `  (sysctl-name-prefix ${sbplString(prefix)})`).join('\n')})`,
    '',
    '(deny network*)',
    '(deny process-fork)',
    '',
  ].join('\n')
}

/** The command line that runs the interpreter under the profile. */
export function seatbeltArgv(
  profile: string,
  python: string,
  pythonArgs: string[],
): {command: string; args: string[]} {
  return {command: SANDBOX_EXEC, args: ['-p', profile, python, ...pythonArgs]}
}
