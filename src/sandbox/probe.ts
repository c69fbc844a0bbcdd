import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync} from 'node:fs'
import {chmod, mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:net'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import type {Launch} from './backend.js'
import type {EscapeAttempt, ProbeControl, ProbePlan} from './probe-plan.js'

import {PROBE_TIMEOUT_MS} from '../shared/limits.js'
import {createProbeDir, removeScratchDir} from './scratch.js'

/**
 * The host side of the escape probe (probe.py, SPEC §7), shared by the backends' once-per-process
 * check and `doctor`: what lies outside for the probe to reach, the config it gets, and the verdict,
 * judged from outside where possible.
 */
export const PROBE_SCRIPT = fileURLToPath(new URL('probe.py', import.meta.url))
/** The directory a sandboxed probe must be able to read (probe.py, and the linux confine modules under it). */
export const PROBE_DIR = dirname(PROBE_SCRIPT)

export type {EscapeAttempt, ProbeControl, ProbePlan} from './probe-plan.js'

/** What every sandbox refuses, whatever its platform: the start of every backend's plan. */
export const COMMON_ATTEMPTS = ['read outside', 'write outside', 'socket', 'fork'] as const

/** The plan of a backend that names none (SandboxBackend.probe). */
export const DEFAULT_PROBE: ProbePlan = {refuse: COMMON_ATTEMPTS, work: ['scratch']}

/** probe.py's CONFIG. */
export interface ProbeConfig {
  attempts: readonly EscapeAttempt[]
  works: readonly ProbeControl[]
  sentinel: string
  writeTarget: string
  port: number
  /** Applied by probe.py before its attempts (the linux backend's confine spec). */
  confine?: Record<string, unknown> | null
}

/** probe.py's report. */
export interface ProbeReport {
  confined: boolean
  error?: string
  /** What confine.py's apply() returned. */
  report?: {landlockAbi?: number; identity?: string; bounds?: {threads?: string; scratch?: string}} | null
  refused?: Partial<Record<EscapeAttempt, boolean>>
  leaked?: string | null
  /** The sentinel and /proc/1 were not even visible (bwrap's namespaces). */
  hidden?: boolean
  works?: Partial<Record<ProbeControl, boolean>>
  uid?: number
}

export interface ProbeVerdict {
  /** Each attempt of the plan, in its order, refused only if the report and the outside agree. */
  attempts: Array<{name: EscapeAttempt; refused: boolean}>
  /** Names of the attempts not refused. */
  escaped: EscapeAttempt[]
  /** Names of the controls that did not work. */
  broken: ProbeControl[]
}

/** One probe run's surroundings: a sentinel outside, a write target, a listener. */
export interface ProbeTargets {
  /** A fresh directory outside the sandbox (removed by close()). */
  base: string
  /** A scratch dir for the probe under base (mode 0700), for a backend that launches it itself. */
  scratchDir: string
  /** CONFIG for `plan`; the linux backend adds its confine spec. */
  config(plan: ProbePlan, confine?: Record<string, unknown> | null): ProbeConfig
  /** The verdict on `report`; `returned` is everything that came back from the sandbox (stdout, output). */
  verdict(plan: ProbePlan, report: ProbeReport, returned: string): ProbeVerdict
  close(): Promise<void>
}

export interface ProbeTargetOptions {
  /**
   * Where the write attempt goes. Default: a file in `base`. The linux backend names one next to
   * confine.py: a host directory in every tier that root without capabilities may own, so only
   * the sandbox can refuse it.
   */
  writeDir?: string
}

/** Opens the surroundings of one probe run; close() removes them (and anything an escape wrote). */
export async function openProbeTargets(options: ProbeTargetOptions = {}): Promise<ProbeTargets> {
  const base = await createProbeDir()
  const listener = await listen().catch(async (error: unknown) => {
    await removeScratchDir(base)
    throw error
  })
  try {
    // Readable by everyone: only the sandbox may stop the probe from reading the sentinel.
    await chmod(base, 0o755)
    const scratchDir = join(base, 'scratch')
    await mkdir(scratchDir, {mode: 0o700})
    const secret = randomBytes(12).toString('hex')
    const sentinel = join(base, 'outside.txt')
    await writeFile(sentinel, `not for the sandbox ${secret}\n`, {mode: 0o644})
    const writeTarget = join(options.writeDir ?? base, `written-by-probe-${randomBytes(6).toString('hex')}`)
    return {
      base,
      scratchDir,
      config: (plan, confine) => ({
        attempts: plan.refuse,
        works: plan.work,
        sentinel,
        writeTarget,
        port: listener.port,
        ...(confine === undefined ? {} : {confine}),
      }),
      verdict(plan, report, returned) {
        const outside: Partial<Record<EscapeAttempt, boolean>> = {
          'read outside': !returned.includes(secret),
          'write outside': !existsSync(writeTarget),
          socket: listener.connections() === 0,
        }
        const attempts = plan.refuse.map((name) => ({
          name,
          refused: report.refused?.[name] === true && outside[name] !== false,
        }))
        return {
          attempts,
          escaped: attempts.filter((attempt) => !attempt.refused).map((attempt) => attempt.name),
          broken: plan.work.filter((name) => report.works?.[name] !== true),
        }
      },
      async close() {
        listener.server.close()
        await rm(writeTarget, {force: true})
        await removeScratchDir(base)
      },
    }
  } catch (error) {
    listener.server.close()
    await removeScratchDir(base)
    throw error
  }
}

/** The last line of a probe's stdout as its report, if it is one. */
export function parseProbeReport(stdout: string): ProbeReport | undefined {
  const line = stdout.trim().split('\n').pop()
  if (!line) return undefined
  try {
    const parsed = JSON.parse(line) as unknown
    return typeof parsed === 'object' && parsed !== null && 'confined' in parsed
      ? (parsed as ProbeReport)
      : undefined
  } catch {
    return undefined
  }
}

/** Runs a launched probe in its own process group; rejects only when it cannot be started. */
export function runProbe(
  launch: Launch,
  cwd: string,
): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, {
      cwd,
      env: launch.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < 1_000_000) stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 1_000_000) stderr += chunk
    })
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }, PROBE_TIMEOUT_MS)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}

/** The probe as a program for the engine (doctor): probe.py's source, then one call that emits the report. */
export async function probeProgram(config: ProbeConfig): Promise<string> {
  const source = await readFile(PROBE_SCRIPT, 'utf8')
  return `${source}\nemit(probe(json.loads(${JSON.stringify(JSON.stringify(config))})))\n`
}

async function listen(): Promise<{server: Server; port: number; connections(): number}> {
  let count = 0
  const server = createServer((socket) => {
    count++
    socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  server.unref()
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {server, port, connections: () => count}
}
