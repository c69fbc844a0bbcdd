import {execFile} from 'node:child_process'
import {existsSync, realpathSync} from 'node:fs'
import {mkdir, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {Launch, LaunchRequest, PythonInfo, SandboxBackend} from '../backend.js'

import {SandboxError} from '../../errors.js'
import {createProbeDir, removeScratchDir} from '../../execution/scratch.js'
import {MemoMap} from '../../memo.js'
import {discoverInterpreter} from '../linux/interpreter-files.js'
import {SANDBOX_EXEC, seatbeltArgv, type SeatbeltPaths, seatbeltProfile, SYSTEM_READ_ONLY} from './profile.js'

export {SANDBOX_EXEC, seatbeltArgv, seatbeltProfile} from './profile.js'

const TIER = 'seatbelt'
const FIX = 'run on macOS with /usr/bin/sandbox-exec, or set execution.sandbox: none to run without isolation'
const RUNTIME_DIR = dirname(fileURLToPath(import.meta.url))

/**
 * What the probe tries once per process (SPEC §7: a silent no-op is the worst failure): each
 * `attempt` must be refused and each `control` must work.
 */
const PROBE = `
import json, os, socket, sys
sentinel, scratch = sys.argv[1], sys.argv[2]
out = {"refused": {}, "works": {}}
def attempt(name, action):
    try:
        action()
        out["refused"][name] = False
    except OSError:
        out["refused"][name] = True
def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
attempt("read a file outside", lambda: open(sentinel, "rb").close())
attempt("read /etc/passwd", lambda: open("/etc/passwd", "rb").close())
attempt("write outside", lambda: open(sentinel + ".w", "wb").close())
attempt("open an inet socket", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))
attempt("fork", fork)
attempt("list /Users", lambda: os.listdir("/Users"))
with open(os.path.join(scratch, "probe.txt"), "w") as f:
    f.write("ok")
out["works"]["scratch"] = open(os.path.join(scratch, "probe.txt")).read() == "ok"
print(json.dumps(out))
`

/** The real path (sandbox rules see resolved paths: /var is /private/var on macOS). */
function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

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
  const base = await createProbeDir()
  try {
    const scratchDir = join(base, 'scratch')
    await mkdir(scratchDir)
    const sentinel = join(base, 'outside.txt')
    await writeFile(sentinel, 'not for the sandbox\n')
    const launch = await launchFor({
      python,
      pythonArgs: ['-I', '-S', '-B', '-c', PROBE, real(sentinel), real(scratchDir)],
      scratchDir,
      runtimePaths: [],
      env: {HOME: scratchDir, TMPDIR: scratchDir, PATH: '/usr/bin:/bin', LANG: 'en_US.UTF-8'},
    })
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        launch.command,
        launch.args,
        {env: launch.env, cwd: scratchDir, timeout: 20_000},
        (error, out, err) => {
          if (out.trim()) resolve(out)
          else reject(new Error((err || error?.message || 'no output').trim()))
        },
      )
    }).catch((error: Error) => {
      throw new SandboxError(`seatbelt sandbox unavailable: the probe did not run (${error.message})`, {
        suggestion: FIX,
        cause: error,
      })
    })
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
      refused?: Record<string, boolean>
      works?: Record<string, boolean>
    }
    const allowed = Object.entries(report.refused ?? {})
      .filter(([, refused]) => !refused)
      .map(([name]) => name)
    if (!report.refused || allowed.length > 0) {
      throw new SandboxError(
        `seatbelt sandbox did not take effect: the probe could ${allowed.join(', ') || 'not run'}`,
        {
          suggestion: FIX,
        },
      )
    }
    if (report.works?.scratch !== true) {
      throw new SandboxError('seatbelt sandbox breaks programs: the scratch dir is not writable', {
        suggestion: FIX,
      })
    }
  } finally {
    await removeScratchDir(base)
  }
}
