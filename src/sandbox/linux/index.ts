import {randomInt} from 'node:crypto'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {
  BoundsInForce,
  ForkServerRequest,
  Launch,
  LaunchRequest,
  PythonInfo,
  SandboxBackend,
} from '../backend.js'

import {SandboxError} from '../../shared/errors.js'
import {ZYGOTE_TMPFS_BYTES} from '../../shared/limits.js'
import {type Logger, silentLogger} from '../../shared/log.js'
import {MemoMap} from '../../shared/memo.js'
import {DEFAULT_BOUNDS, NO_ISOLATION_FIX} from '../backend.js'
import {
  COMMON_ATTEMPTS,
  openProbeTargets,
  parseProbeReport,
  PROBE_DIR,
  PROBE_SCRIPT,
  type ProbePlan,
  type ProbeReport,
  runProbe,
} from '../probe.js'
import {bwrapArgs, findBwrap} from './bwrap.js'
import {interpreterFiles} from './interpreter-files.js'

/** confine.py: imported by the child's bootstrap, which calls `apply(spec)` before reading the program. */
export const CONFINE_MODULE = fileURLToPath(new URL('confine.py', import.meta.url))
const ZYGOTE_SCRIPT = fileURLToPath(new URL('zygote.py', import.meta.url))
const RUNTIME_DIR = dirname(CONFINE_MODULE)

/** The object handed to confine.py's `apply()`, as the runner's start message carries it. */
export interface LinuxConfineSpec {
  [key: string]: unknown
  /** Absolute path of confine.py. */
  module: string
  tier: string
  /** Whether the child runs inside bwrap's namespaces. */
  namespace: boolean
  /**
   * When the child starts as root: the uid/gid to become, one per program (RLIMIT_NPROC counts
   * per uid), once confine.py has made what the interpreter reads reachable by it; if that cannot
   * be done it stays uid 0 without any capability.
   */
  dropRoot: {uid: number; gid: number}
  /** RLIMIT_NPROC, counted for this program alone (namespaces.py). */
  threads: number
  /** The tmpfs the scratch dir becomes: at mountPoint (bwrap's, remounted) or at path itself. */
  scratch: {path: string; mountPoint: string; bytes: number; files: number}
  /** Made by the fork server in namespaces of its own (zygote.py). */
  forked?: boolean
  /** False: no namespaces of the child's own (LinuxBackendOptions.ownNamespaces). */
  ownNamespaces: boolean
  landlock: {required: boolean; readOnly: string[]; readWrite: string[]; devices: string[]}
  seccomp: {required: true}
}

export interface LinuxBackendOptions {
  /**
   * Use bwrap's namespaces when bwrap is installed and works. Default: true, unless the
   * environment variable PTC_MCP_BWRAP is "0".
   */
  bwrap?: boolean
  logger?: Logger
  /**
   * Without bwrap, let the child make namespaces of its own (a mount namespace for the scratch
   * tmpfs; a user namespace when unprivileged). Default true; false shows the fallback bounds of a
   * host that has none.
   */
  ownNamespaces?: boolean
  /** For tests: the platform to act on. Default process.platform. */
  platform?: NodeJS.Platform
}

/** What the once-per-process probe found for one interpreter. */
interface Verified {
  ownNamespaces: boolean
  tier: string
  bwrap: string | undefined
  landlockAbi: number
  bounds?: BoundsInForce
}

/** What the probe tries here: seccomp refuses new processes, sockets and signals beyond the program. */
export const LINUX_PROBE: ProbePlan = {
  refuse: [...COMMON_ATTEMPTS, 'read /etc/passwd', 'unix socket', 'spawn', 'signal the parent'],
  work: ['scratch', 'socketpair', 'thread'],
}

/** The memory bound, the same in every tier: seccomp refuses what RLIMIT_AS does not count. */
const MEMORY_BOUND = 'RLIMIT_AS (memfd and shared memory refused)'

const FIX =
  'use a Linux kernel with Landlock (5.13+, "landlock" in the lsm= boot list) and seccomp, or install bubblewrap; ' +
  `or ${NO_ISOLATION_FIX}`

export function createLinuxBackend(options: LinuxBackendOptions = {}): SandboxBackend {
  const logger = options.logger ?? silentLogger
  const verified = new MemoMap<string, Verified>()

  function verify(python: PythonInfo): Promise<Verified> {
    const platform = options.platform ?? process.platform
    if (platform !== 'linux') {
      return Promise.reject(
        new SandboxError(`the linux sandbox runs on Linux only (this is ${platform})`, {
          suggestion: 'set execution.sandbox: auto to pick the backend of this platform',
        }),
      )
    }
    const useBwrap = options.bwrap ?? process.env.PTC_MCP_BWRAP !== '0'
    const ownNamespaces = options.ownNamespaces ?? true
    // A failed probe is not remembered: the fix (installing something) may come while we run.
    return verified.get(`${python.executable}\0${useBwrap}`, () =>
      verifyTiers(python, useBwrap, ownNamespaces, logger),
    )
  }

  return {
    name: 'linux',
    probe: LINUX_PROBE,
    async check(python) {
      const {tier, bounds} = await verify(python)
      return {tier, bounds}
    },
    async launch(request) {
      const state = await verify(request.python)
      return linuxLaunch(request, state)
    },
    async forkServer(request) {
      const state = await verify(request.python)
      return forkServerLaunch(request, state)
    },
  }
}

/**
 * zygote.py, in the same bwrap as a child (or none in the landlock-only tier). Its mount point
 * for scratch space (/tmp, or the scratch root outside /tmp) also holds the socket's directory
 * and, unprivileged, a /proc for writing the children's uid maps: each child covers all three
 * with a tmpfs of its own before it is confined.
 */
async function forkServerLaunch(
  request: ForkServerRequest,
  state: Verified,
): Promise<Omit<Launch, 'confine'>> {
  if (!state.ownNamespaces) {
    throw new SandboxError('the fork server needs namespaces of its own for each child')
  }
  const files = await interpreterFiles(request.python)
  const readOnly = [...new Set([RUNTIME_DIR, ...files.readOnly, ...request.runtimePaths])]
  const {scratchRoot} = request
  const mountPoint = scratchRoot.startsWith('/tmp/') ? '/tmp' : scratchRoot
  const asRoot = process.geteuid?.() === 0
  const inBwrap = state.bwrap !== undefined
  const proc = inBwrap ? join(mountPoint, '.ptc-zygote-proc') : '/proc'
  // Inside bwrap the socket's directory is bound under the mount point, which children cover.
  const socketDir = inBwrap ? join(mountPoint, '.ptc-zygote-socket') : request.socketDir
  const socketPath = join(socketDir, basename(request.socketPath))
  const args = [
    '-I',
    '-S',
    '-B',
    ZYGOTE_SCRIPT,
    dirname(request.runnerPath),
    CONFINE_MODULE,
    socketPath,
    proc,
    // SPEC §7, §11: each child gets a mount namespace of its own. The others are the session's:
    // bwrap's (made once for the fork server) or, without bwrap, the server's PID namespace and an
    // IPC namespace per child. A program reaches none of them anyway: its seccomp filter refuses
    // sockets, SysV and POSIX IPC and sethostname and keeps pid-taking calls to its own pid, and its
    // Landlock domain scopes signals and abstract sockets from ABI 6 (zygote.py).
    inBwrap ? '' : 'ipc',
  ]
  const env = {PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8'}
  if (state.bwrap === undefined) return {command: request.python.executable, args, env, tier: state.tier}
  const extraArgs = ['--bind', request.socketDir, socketDir]
  // As root, each child drops to a uid of its own (privileges.py): killing it at a timeout takes
  // CAP_KILL, which bwrap would otherwise drop. It reaches no further than bwrap's PID namespace,
  // and the children give it up with every other capability before a program runs.
  if (asRoot) extraArgs.push('--cap-add', 'CAP_KILL')
  else extraArgs.push('--proc', proc)
  const bwrap = bwrapArgs({
    readOnly,
    devices: files.devices,
    links: files.links,
    scratchDir: scratchRoot,
    scratchBytes: ZYGOTE_TMPFS_BYTES,
    env,
    command: request.python.executable,
    args,
    extraArgs,
  })
  return {command: state.bwrap, args: bwrap, env: {}, tier: state.tier}
}

/** The default instance: bwrap when usable (PTC_MCP_BWRAP=0 turns it off). */
export const linuxBackend: SandboxBackend = createLinuxBackend()

function tierName(bwrap: boolean, landlockAbi: number): string {
  return `linux:${[bwrap ? 'bwrap' : '', landlockAbi > 0 ? 'landlock' : '', 'seccomp'].filter(Boolean).join('+')}`
}

/**
 * The uids root's children drop to: one per program, picked at random from a range no system
 * allocates (above the container ranges, below 2^31). Two programs sharing one by chance share
 * their thread budget, nothing else: each is confined to its own scratch dir and signals only
 * itself.
 */
export const RUN_UID_BASE = 0x7a_00_00_00
const RUN_UID_SPAN = 0x10_00_00

async function linuxLaunch(request: LaunchRequest, state: Verified): Promise<Launch> {
  const files = await interpreterFiles(request.python)
  const readOnly = [...new Set([RUNTIME_DIR, ...files.readOnly, ...request.runtimePaths])]
  const bounds = request.bounds ?? DEFAULT_BOUNDS
  const runId = RUN_UID_BASE + randomInt(RUN_UID_SPAN)
  const confine: LinuxConfineSpec = {
    module: CONFINE_MODULE,
    tier: state.tier,
    namespace: state.bwrap !== undefined,
    dropRoot: {uid: runId, gid: runId},
    threads: bounds.threads,
    ...(request.forked && {forked: true}),
    scratch: {
      path: request.scratchDir,
      mountPoint: scratchMountPoint(request, state.bwrap !== undefined),
      bytes: bounds.scratchBytes,
      files: bounds.scratchFiles,
    },
    ownNamespaces: state.ownNamespaces,
    // Inside bwrap only these paths exist anyway; Landlock is then a second wall, not the only one.
    landlock: {
      required: state.bwrap === undefined,
      readOnly,
      // Inside bwrap /tmp is the same private tmpfs as the scratch dir.
      readWrite: state.bwrap === undefined ? [request.scratchDir] : [request.scratchDir, '/tmp'],
      devices: files.devices,
    },
    seccomp: {required: true},
  }
  if (state.bwrap === undefined || request.forked) {
    return {
      command: request.python.executable,
      args: request.pythonArgs,
      env: request.env,
      confine,
      tier: state.tier,
    }
  }
  const args = bwrapArgs({
    readOnly,
    devices: files.devices,
    links: files.links,
    scratchDir: request.scratchDir,
    scratchBytes: bounds.scratchBytes,
    env: request.env,
    command: request.python.executable,
    args: request.pythonArgs,
  })
  return {command: state.bwrap, args, env: {}, confine, tier: state.tier}
}

/**
 * Where the scratch tmpfs is mounted: inside bwrap, /tmp when the scratch dir is under it (bwrap's
 * tmpfs, or for a forked child its own covering the fork server's), else the scratch dir itself;
 * a forked child's covers the scratch root (the fork server's mount point), in either tier: its
 * scratch dir is made in that tmpfs, never on the host (SPEC §11).
 */
function scratchMountPoint(request: LaunchRequest, inBwrap: boolean): string {
  if (!inBwrap) return request.forked ? dirname(request.scratchDir) : request.scratchDir
  if (request.scratchDir.startsWith('/tmp/')) return '/tmp'
  return request.forked ? dirname(request.scratchDir) : request.scratchDir
}

async function verifyTiers(
  python: PythonInfo,
  useBwrap: boolean,
  ownNamespaces: boolean,
  logger: Logger,
): Promise<Verified> {
  const bwrap = useBwrap ? findBwrap() : undefined
  if (bwrap) {
    const attempt = await probe(python, {tier: tierName(true, 1), bwrap, landlockAbi: 1, ownNamespaces})
    if (attempt.ok) return attempt.verified
    if (!attempt.bwrapBroken) throw attempt.error
    logger.warn(
      `bwrap is installed but does not work here (${attempt.reason}); using Landlock and seccomp alone`,
    )
  } else if (useBwrap) {
    logger.debug('bwrap is not installed; using Landlock and seccomp alone')
  }
  const attempt = await probe(python, {
    tier: tierName(false, 1),
    bwrap: undefined,
    landlockAbi: 1,
    ownNamespaces,
  })
  if (attempt.ok) return attempt.verified
  throw attempt.bwrapBroken ? refusalError(attempt.reason) : attempt.error
}

type ProbeResult =
  | {ok: true; verified: Verified}
  | {ok: false; bwrapBroken: true; reason: string}
  | {ok: false; bwrapBroken: false; error: SandboxError}

/** Runs probe.py exactly as a program child would be run, and checks what it reports. */
async function probe(python: PythonInfo, candidate: Verified): Promise<ProbeResult> {
  // The write attempt goes next to confine.py: a host directory in every tier.
  const targets = await openProbeTargets({writeDir: RUNTIME_DIR})
  try {
    const {scratchDir} = targets
    const request: LaunchRequest = {
      python,
      pythonArgs: [],
      scratchDir,
      runtimePaths: [PROBE_DIR],
      env: {HOME: scratchDir, TMPDIR: scratchDir, PATH: '/usr/bin:/bin', LANG: 'C.UTF-8'},
    }
    const draft = await linuxLaunch(request, candidate)
    const config = targets.config(LINUX_PROBE, draft.confine)
    request.pythonArgs = ['-I', '-S', '-B', PROBE_SCRIPT, JSON.stringify(config)]
    const launch = await linuxLaunch(request, candidate)
    const run = await runProbe(launch, scratchDir).catch((error: Error) => {
      throw new SandboxError(`cannot start the sandbox probe: ${error.message}`, {
        suggestion: FIX,
        cause: error,
      })
    })
    const output = parseProbeReport(run.stdout)
    if (!output) {
      const reason = (run.stderr.trim() || `exit code ${run.code}`).split('\n').slice(-3).join(' ')
      // bwrap itself failed (no user namespaces, say) or the interpreter cannot start inside it.
      if (candidate.bwrap) return {ok: false, bwrapBroken: true, reason}
      return refusal(`the sandbox probe did not report (${reason})`)
    }
    if (!output.confined) return refusal(`the sandbox cannot be applied: ${output.error ?? 'unknown error'}`)
    const verdict = targets.verdict(LINUX_PROBE, output, run.stdout)
    if (verdict.escaped.length > 0) {
      return refusal(`the sandbox did not take effect: not refused: ${verdict.escaped.join(', ')}`)
    }
    if (candidate.bwrap && output.hidden !== true) {
      return refusal('bwrap ran but the host file system was still visible inside it')
    }
    if (verdict.broken.length > 0) {
      return refusal(`the sandbox breaks what programs need: ${verdict.broken.join(', ')}`)
    }
    const landlockAbi = output.report?.landlockAbi ?? 0
    return {
      ok: true,
      verified: {
        tier: tierName(candidate.bwrap !== undefined, landlockAbi),
        ownNamespaces: candidate.ownNamespaces,
        bwrap: candidate.bwrap,
        landlockAbi,
        bounds: boundsInForce(output),
      },
    }
  } finally {
    await targets.close()
  }
}

function boundsInForce(output: ProbeReport): BoundsInForce {
  const reported = output.report?.bounds
  return {
    threads: reported?.threads ?? 'not reported',
    memory: MEMORY_BOUND,
    scratch: reported?.scratch ?? 'not reported',
  }
}

function refusalError(message: string): SandboxError {
  return new SandboxError(`linux sandbox unavailable: ${message}`, {suggestion: FIX})
}

function refusal(message: string): ProbeResult {
  return {ok: false, bwrapBroken: false, error: refusalError(message)}
}
