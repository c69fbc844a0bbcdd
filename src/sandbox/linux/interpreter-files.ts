import {execFile} from 'node:child_process'
import {existsSync, lstatSync, realpathSync, statSync} from 'node:fs'
import {dirname} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {PythonInfo} from '../backend.js'

import {MemoMap} from '../../shared/memo.js'

/** What the interpreter may read inside the linux sandbox, found once per interpreter. */
export interface InterpreterFiles {
  /**
   * Files and directories readable, never writable: the interpreter, its standard library, the
   * directories of the shared libraries it loads, the dynamic loader, time zone and locale data.
   */
  readOnly: string[]
  /** Character devices readable and writable (no ioctl): /dev/null and the random devices. */
  devices: string[]
  /**
   * Host symlinks recreated inside a namespace so that the loader's paths resolve as on the host
   * (/lib -> usr/lib on merged-/usr systems). Only those that are symlinks here.
   */
  links: string[]
}

const DISCOVERY_SCRIPT = fileURLToPath(new URL('interpreter_files.py', import.meta.url))

/**
 * System files an interpreter reads besides its own: the loader's cache, the local time zone,
 * zoneinfo for `zoneinfo`.
 */
const SYSTEM_FILES = ['/etc/ld.so.cache', '/etc/localtime', '/usr/share/zoneinfo']
const DEVICES = ['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom']
const ALIASES = ['/lib', '/lib64', '/lib32', '/libx32', '/bin', '/sbin']
/** Where libraries live when the interpreter cannot tell: whole directories then. */
const FALLBACK_LIBRARY_DIRS = ['/lib', '/lib64', '/usr/lib', '/usr/lib64', '/usr/local/lib']

const cache = new MemoMap<string, InterpreterFiles>()

export function interpreterFiles(python: PythonInfo): Promise<InterpreterFiles> {
  return cache.get(python.executable, () => findInterpreterFiles(python))
}

/** What interpreter_files.py reports. */
export interface Discovery {
  executable: string
  interpreter: string | null
  mapped: string[]
}

async function findInterpreterFiles(python: PythonInfo): Promise<InterpreterFiles> {
  const stdlib = python.stdlibPaths.filter((path) => isDirectory(path))
  const own = stdlib.length > 0 ? stdlib : python.prefixes.filter((path) => isDirectory(path))
  let native: string[]
  try {
    native = nativePaths(await discoverInterpreter(python.executable), python.executable)
  } catch {
    native = FALLBACK_LIBRARY_DIRS.filter((path) => isDirectory(path))
  }
  const readOnly = unique([python.executable, ...own, ...native, ...SYSTEM_FILES]).filter((path) =>
    existsSync(path),
  )
  return {
    readOnly: withoutNested(readOnly),
    devices: DEVICES.filter((path) => existsSync(path)),
    links: ALIASES.filter((path) => isSymlink(path)),
  }
}

/**
 * The executable, the dynamic loader by the name the executable gives, and the directory of
 * every other mapped file (a library found by soname is a symlink next to the real file).
 */
export function nativePaths(found: Discovery, executable: string, realpath = realpathOrSelf): string[] {
  const paths = [executable, found.executable]
  if (found.interpreter) paths.push(found.interpreter)
  const itself = new Set([executable, found.executable].map((path) => realpath(path)))
  for (const file of found.mapped) {
    if (itself.has(realpath(file))) continue
    paths.push(dirname(file))
  }
  return unique(paths)
}

/** The real path, or the path itself when it cannot be resolved (gone, unreadable). */
export function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** Runs interpreter_files.py with `executable` (unconfined, empty environment). */
export function discoverInterpreter(executable: string): Promise<Discovery> {
  return new Promise((resolve, reject) => {
    execFile(
      executable,
      ['-I', '-S', '-B', DISCOVERY_SCRIPT],
      {env: {}, timeout: 30_000, maxBuffer: 4 * 1024 * 1024},
      (error, stdout) => {
        if (error) return reject(error)
        try {
          const parsed = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Discovery
          if (!Array.isArray(parsed.mapped)) throw new Error('no mapped files reported')
          resolve(parsed)
        } catch (parseError) {
          reject(parseError)
        }
      },
    )
  })
}

/** Drops paths inside another path of the list (the outer one already grants them). */
function withoutNested(paths: string[]): string[] {
  return paths.filter((path) => !paths.some((other) => other !== path && path.startsWith(other + '/')))
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)]
}
