import {execFile} from 'node:child_process'

import type {PythonInfo} from '../../sandbox/backend.js'

import {PtcError} from '../../shared/errors.js'
import {MemoMap} from '../../shared/memo.js'

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
const cache = new MemoMap<string, PythonInfo>()

/**
 * Runs the configured interpreter once (a pyenv shim costs ~80 ms per start) and returns the real
 * executable and its paths. Cached per command; a failure is not cached.
 */
export function resolvePython(command: string): Promise<PythonInfo> {
  return cache.get(command, () => probe(command))
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
          if (code === 'ENOENT') {
            reject(notFound(`Python interpreter "${command}" was not found`, error))
            return
          }
          const failure = notFound(
            `Python interpreter "${command}" failed: ${stderr.trim() || error.message}`,
            error,
          )
          tooOldOr(command, failure).then(reject, reject)
          return
        }
        try {
          resolve(parseProbe(command, stdout))
        } catch (parseError) {
          tooOldOr(command, parseError).then(reject, reject)
        }
      },
    )
  })
}

/**
 * When the probe fails, `--version` may still tell why: Python 2 rejects `-I`, and a Python too
 * old should be reported as such rather than as a broken interpreter. Resolves with the error to report.
 */
function tooOldOr(command: string, failure: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], {timeout: 5000, encoding: 'utf8'}, (_error, stdout, stderr) => {
      const match = /Python (\d+)\.(\d+)(?:\.\d+)?/.exec(`${stdout}\n${stderr}`)
      if (match && isTooOld(Number(match[1]), Number(match[2])))
        resolve(tooOld(command, match[0].slice('Python '.length)))
      else resolve(failure)
    })
  })
}

function isTooOld(major: number, minor: number): boolean {
  return major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])
}

function tooOld(command: string, version: string): PtcError {
  return notFound(
    `Python ${version} at "${command}" is too old: programs need Python >= ${MIN_PYTHON.join('.')}`,
  )
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
  if (isTooOld(major, minor)) throw tooOld(command, String(data.version))
  return {
    executable: data.executable,
    version: String(data.version),
    prefixes: unique(Array.isArray(data.prefixes) ? data.prefixes : []),
    stdlibPaths: unique(Array.isArray(data.stdlib) ? data.stdlib : []),
  }
}
