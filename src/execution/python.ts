import {execFile} from 'node:child_process'

import type {PythonInfo} from '../sandbox/backend.js'

import {PtcError} from '../errors.js'

/** Oldest Python that can run programs (top-level await flags, TracebackType, match...). */
export const MIN_PYTHON: readonly [number, number] = [3, 10]

const PROBE = `
import json, os, sys, sysconfig
paths = sysconfig.get_paths()
stdlib = [p for p in [paths.get('stdlib'), paths.get('platstdlib'), *sys.path] if p and os.path.exists(p)]
print(json.dumps({
  'executable': os.path.realpath(sys.executable),
  'version': '.'.join(str(n) for n in sys.version_info[:3]),
  'version_info': list(sys.version_info[:2]),
  'prefixes': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix],
  'stdlib': stdlib,
}))
`

const FIX = 'install Python 3.10 or newer, or set execution.python in config.yaml to its full path'
const cache = new Map<string, Promise<PythonInfo>>()

/**
 * Runs the configured interpreter once (a pyenv shim costs ~80 ms per start) and returns the real
 * executable and its paths. Cached per command; a failure is not cached.
 */
export function resolvePython(command: string): Promise<PythonInfo> {
  let info = cache.get(command)
  if (!info) {
    info = probe(command)
    cache.set(command, info)
    info.catch(() => cache.delete(command))
  }
  return info
}

function notFound(message: string, cause?: unknown): PtcError {
  return new PtcError('PYTHON_NOT_FOUND', message, {suggestion: FIX, cause})
}

function probe(command: string): Promise<PythonInfo> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      ['-I', '-S', '-c', PROBE],
      {timeout: 20_000, maxBuffer: 1024 * 1024, encoding: 'utf8'},
      (error, stdout, stderr) => {
        if (error) {
          const {code} = error as NodeJS.ErrnoException
          const detail = code === 'ENOENT' ? 'was not found' : `failed: ${stderr.trim() || error.message}`
          reject(notFound(`Python interpreter "${command}" ${detail}`, error))
          return
        }
        try {
          resolve(parseProbe(command, stdout))
        } catch (parseError) {
          reject(parseError)
        }
      },
    )
  })
}

function unique(values: unknown[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === 'string' && value !== ''))]
}

function parseProbe(command: string, stdout: string): PythonInfo {
  let data: {
    executable?: unknown
    version?: unknown
    version_info?: unknown
    prefixes?: unknown
    stdlib?: unknown
  }
  try {
    data = JSON.parse(stdout.trim().split('\n').at(-1) ?? '')
  } catch (error) {
    throw notFound(`"${command}" did not answer like a CPython interpreter`, error)
  }
  const [major, minor] = Array.isArray(data.version_info) ? data.version_info : []
  if (typeof major !== 'number' || typeof minor !== 'number' || typeof data.executable !== 'string') {
    throw notFound(`"${command}" did not answer like a CPython interpreter`)
  }
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw notFound(`Python ${String(data.version)} at "${command}" is too old: programs need Python >= 3.10`)
  }
  return {
    executable: data.executable,
    version: String(data.version),
    prefixes: unique(Array.isArray(data.prefixes) ? data.prefixes : []),
    stdlibPaths: unique(Array.isArray(data.stdlib) ? data.stdlib : []),
  }
}
