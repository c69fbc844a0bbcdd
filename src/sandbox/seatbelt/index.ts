import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {Launch, LaunchRequest, PythonInfo, SandboxBackend} from '../backend.js'

import {SandboxError} from '../../shared/errors.js'
import {MemoMap} from '../../shared/memo.js'
import {NO_ISOLATION_FIX} from '../backend.js'
import {discoverInterpreter, realpathOrSelf} from '../linux/interpreter-files.js'
import {
  COMMON_ATTEMPTS,
  openProbeTargets,
  parseProbeReport,
  PROBE_DIR,
  PROBE_SCRIPT,
  type ProbePlan,
  runProbe,
} from '../probe.js'
import {SANDBOX_EXEC, seatbeltArgv, type SeatbeltPaths, seatbeltProfile, SYSTEM_READ_ONLY} from './profile.js'

export {SANDBOX_EXEC, seatbeltArgv, seatbeltProfile} from './profile.js'

const TIER = 'seatbelt'
const FIX = `run on macOS with /usr/bin/sandbox-exec, or ${NO_ISOLATION_FIX}`
const RUNTIME_DIR = dirname(fileURLToPath(import.meta.url))

/** What the probe tries here (SPEC §7: a silent no-op is the worst failure). */
export const SEATBELT_PROBE: ProbePlan = {
  refuse: [...COMMON_ATTEMPTS, 'read /etc/passwd', 'list /Users'],
  work: ['scratch'],
}

/** The real path (sandbox rules see resolved paths: /var is /private/var on macOS). */
const real = realpathOrSelf

/** Directories of the interpreter's own libraries, found by loading it once. */
const libraryDirs = new Map<string, Promise<string[]>>()

function interpreterLibraries(python: PythonInfo): Promise<string[]> {
  let dirs = libraryDirs.get(python.executable)
  if (!dirs) {
    dirs = discoverInterpreter(python.executable).then(
      (found) => [...new Set(found.mapped.map((file) => dirname(real(file))))],
      () => [],
    )
    libraryDirs.set(python.executable, dirs)
  }
  return dirs
}

function isSystemPath(path: string): boolean {
  return SYSTEM_READ_ONLY.some((root) => path === root || path.startsWith(root + '/'))
}

function assertAvailable(): void {
  if (process.platform !== 'darwin') {
    throw new SandboxError(`the seatbelt sandbox runs on macOS only (this is ${process.platform})`, {
      suggestion: 'set execution.sandbox: auto to pick the backend of this platform',
    })
  }
  if (!existsSync(SANDBOX_EXEC)) {
    throw new SandboxError(`${SANDBOX_EXEC} is missing`, {suggestion: FIX})
  }
}

/** The paths of the profile for one launch. Exported for tests. */
export function seatbeltPaths(
  python: PythonInfo,
  scratchDir: string,
  runtimePaths: string[],
  libraries: string[],
): SeatbeltPaths {
  const executables = new Set([python.executable, real(python.executable)])
  // A framework build's bin/python3.x re-executes Resources/Python.app/Contents/MacOS/Python.
  for (const prefix of python.prefixes) {
    const stub = join(prefix, 'Resources', 'Python.app', 'Contents', 'MacOS', 'Python')
    if (existsSync(stub)) executables.add(real(stub))
  }
  const readOnly = [
    ...[...python.prefixes, ...python.stdlibPaths, ...runtimePaths, RUNTIME_DIR].map((path) => real(path)),
    ...libraries.filter((dir) => !isSystemPath(dir)),
  ]
  return {
    executables: [...executables],
    readOnly: [...new Set(readOnly)],
    readWrite: [real(scratchDir)],
  }
}

async function launchFor(request: LaunchRequest): Promise<Launch> {
  const paths = seatbeltPaths(
    request.python,
    request.scratchDir,
    request.runtimePaths,
    await interpreterLibraries(request.python),
  )
  const {command, args} = seatbeltArgv(seatbeltProfile(paths), request.python.executable, request.pythonArgs)
  return {command, args, env: request.env, confine: null, tier: TIER}
}

export function createSeatbeltBackend(): SandboxBackend {
  const verified = new MemoMap<string, void>()

  function verify(python: PythonInfo): Promise<void> {
    return verified.get(python.executable, () => probe(python, launchFor))
  }

  return {
    name: 'seatbelt',
    probe: SEATBELT_PROBE,
    async check(python) {
      assertAvailable()
      await verify(python)
      return {tier: TIER}
    },
    async launch(request) {
      assertAvailable()
      await verify(request.python)
      return launchFor(request)
    },
  }
}

export const seatbeltBackend: SandboxBackend = createSeatbeltBackend()

async function probe(
  python: PythonInfo,
  launchFor: (request: LaunchRequest) => Promise<Launch>,
): Promise<void> {
  const targets = await openProbeTargets()
  try {
    const {scratchDir} = targets
    const config = targets.config(SEATBELT_PROBE)
    const launch = await launchFor({
      python,
      pythonArgs: ['-I', '-S', '-B', PROBE_SCRIPT, JSON.stringify(config)],
      scratchDir,
      runtimePaths: [PROBE_DIR],
      env: {HOME: scratchDir, TMPDIR: scratchDir, PATH: '/usr/bin:/bin', LANG: 'en_US.UTF-8'},
    })
    const run = await runProbe(launch, scratchDir).catch((error: Error) => {
      throw new SandboxError(`seatbelt sandbox unavailable: the probe did not run (${error.message})`, {
        suggestion: FIX,
        cause: error,
      })
    })
    const report = parseProbeReport(run.stdout)
    if (!report) {
      const reason = (run.stderr.trim() || `exit code ${run.code}`).split('\n').slice(-3).join(' ')
      throw new SandboxError(`seatbelt sandbox unavailable: the probe did not run (${reason})`, {
        suggestion: FIX,
      })
    }
    const verdict = targets.verdict(SEATBELT_PROBE, report, run.stdout)
    if (verdict.escaped.length > 0) {
      throw new SandboxError(
        `seatbelt sandbox did not take effect: not refused: ${verdict.escaped.join(', ')}`,
        {suggestion: FIX},
      )
    }
    if (verdict.broken.length > 0) {
      throw new SandboxError('seatbelt sandbox breaks programs: the scratch dir is not writable', {
        suggestion: FIX,
      })
    }
  } finally {
    await targets.close()
  }
}
