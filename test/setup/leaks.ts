// Global setup: every test run gets its own TMPDIR, so that afterwards we can tell exactly which
// program children and scratch directories belong to it. Teardown fails the run when a `ptc-run-*`
// scratch directory or a process started in one (a program child) is left behind. Scratch
// directories live under the user's private root, `<TMPDIR>/ptc-mcp-<uid>` (src/sandbox/scratch.ts).
import {mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

const SCRATCH_PREFIX = 'ptc-run-'
const OWNER = 'PTC_TEST_LEAK_ROOT'
let root: string | undefined
let previousTmpdir: string | undefined

export function setup(): void {
  // vitest runs a global setup for the root config and again for each project that inherits it:
  // the first owns the run's TMPDIR, the others leave it (and its check) alone.
  if (process.env[OWNER]) return
  previousTmpdir = process.env.TMPDIR
  root = mkdtempSync(join(tmpdir(), 'ptc-test-'))
  // Inherited by the test workers, which start after global setup.
  process.env.TMPDIR = root
  process.env[OWNER] = root
  // Result shapes (inspect_tool's observed_result) are cached there, not in the real home.
  process.env.XDG_CACHE_HOME = join(root, 'cache')
  // Artifacts (output over the cap, ./out files) too.
  process.env.XDG_STATE_HOME = join(root, 'state')
}

function scratchRootOf(dir: string): string {
  return join(dir, `ptc-mcp-${process.geteuid?.() ?? 0}`)
}

function scratchLeft(dir: string): string[] {
  try {
    return readdirSync(scratchRootOf(dir)).filter((name) => name.startsWith(SCRATCH_PREFIX))
  } catch {
    return []
  }
}

/** Live processes (not zombies) whose cwd or environment points into this run's TMPDIR. */
function processesUnder(dir: string): string[] {
  const found: string[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue
      let cwd = ''
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`)
      } catch {
        // another user's process
      }
      let environ = ''
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8')
      } catch {
        // another user's process
      }
      const prefix = join(scratchRootOf(dir), SCRATCH_PREFIX)
      const inScratch = cwd.startsWith(prefix) || environ.includes(`=${prefix}`)
      if (inScratch) {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
        found.push(`pid ${pid}: ${cmdline}`)
      }
    } catch {
      // gone meanwhile
    }
  }
  return found
}

export async function teardown(): Promise<void> {
  if (!root) return
  const dir = root
  root = undefined
  delete process.env[OWNER]
  if (previousTmpdir === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = previousTmpdir
  try {
    let processes: string[] = []
    let scratch: string[] = []
    // Children killed at the very end may still be exiting: give them a bounded moment.
    for (let attempt = 0; attempt < 30; attempt++) {
      processes = process.platform === 'linux' ? processesUnder(dir) : []
      scratch = scratchLeft(dir)
      if (processes.length === 0 && scratch.length === 0) return
      await sleep(100)
    }
    const problems = [
      ...processes.map((p) => `program child still running: ${p}`),
      ...scratch.map((name) => `scratch directory left behind: ${join(scratchRootOf(dir), name)}`),
    ]
    // vitest reports a teardown error but keeps exit code 0: set it too.
    process.exitCode = 1
    throw new Error(`leak check failed after the test run:\n  ${problems.join('\n  ')}`)
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}
