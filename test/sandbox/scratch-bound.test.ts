// @tier sandbox
/**
 * The scratch bound held by the kernel in every tier (SPEC §15), against programs that write or
 * fallocate 2 GiB with max_scratch_bytes at 64 MiB: in one file, or in 32 files of 63 MiB (before,
 * in the Landlock-only tier without namespaces, 2,016 MiB landed in about 4 ms between two looks of
 * a 100 ms poll). Each attempt fails inside the program (EFBIG, ENOSPC or EPERM, which it sees),
 * and a sampler looking at the program's scratch directory every moment never finds more than
 * 128 MiB there. Tiers: bwrap, Landlock + seccomp with a mount namespace of its own (a capped
 * tmpfs), and Landlock + seccomp without namespaces (the scratch on the host's disk: RLIMIT_FSIZE
 * of a quarter of the bound, fallocate past a file's end refused, every write watched).
 */
import {spawn} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest'

import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {createLinuxBackend} from '../../src/sandbox/linux/index.js'
import {programInterpreters} from '../helpers/processes.js'
import {type EngineHandle, startEngine} from './harness.js'

const MiB = 1024 * 1024
const SCRATCH_BYTES = 64 * MiB
const PEAK_ALLOWED = 128 * MiB

const TIERS = [
  {name: 'bwrap', options: {bwrap: true}},
  {name: 'landlock+seccomp, own namespaces', options: {bwrap: false}},
  {name: 'landlock+seccomp, no namespaces', options: {bwrap: false, ownNamespaces: false}},
].filter((tier) => !tier.options.bwrap || findBwrap() !== undefined)

/** Waits a moment (for the sampler to find it), then `body`; each OSError is printed as it happens. */
const program = (body: string) => `
import os, time, ctypes, errno
time.sleep(1)
libc = ctypes.CDLL(None, use_errno=True)
def fallocate(fd, mode, size):
    if libc.fallocate(fd, mode, ctypes.c_long(0), ctypes.c_long(size)) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
failed = []
def attempt(label, action):
    try:
        action()
    except OSError as e:
        failed.append(errno.errorcode.get(e.errno, e.errno))
        print("failed", label, failed[-1], flush=True)
${body}
print("failures", len(failed), flush=True)
`

const ATTACKS: Record<string, string> = {
  'write 2 GiB in one file': `
def big():
    with open("big", "wb") as f:
        for _ in range(32):
            f.write(b"\\1" * (64 << 20))
attempt("big", big)`,
  'posix_fallocate 2 GiB in one file': `
def big():
    fd = os.open("big", os.O_CREAT | os.O_WRONLY)
    os.posix_fallocate(fd, 0, 2 << 30)
attempt("big", big)`,
  'fallocate 2 GiB past the end of one file (FALLOC_FL_KEEP_SIZE)': `
def big():
    fd = os.open("big", os.O_CREAT | os.O_WRONLY)
    fallocate(fd, 1, 2 << 30)
attempt("big", big)`,
  'write 32 files of 63 MiB': `
for n in range(32):
    def one(n=n):
        with open(f"f{n}", "wb") as f:
            f.write(b"\\1" * (63 << 20))
    attempt(n, one)`,
  'fallocate 32 files of 63 MiB (mode 0 and KEEP_SIZE)': `
for n in range(32):
    def one(n=n):
        fd = os.open(f"f{n}", os.O_CREAT | os.O_WRONLY)
        try:
            fallocate(fd, n % 2, 63 << 20)
        finally:
            os.close(fd)
    attempt(n, one)`,
}

/**
 * Samples the scratch of program `pid` (its cwd) as fast as it can until the process is gone; prints
 * the peak in bytes: the tmpfs's used space when the cwd is a mount of its own, else the allocated
 * blocks of every file under it on the host's disk.
 */
const SAMPLER = String.raw`
import os, sys
pid, host = sys.argv[1], os.stat(sys.argv[2]).st_dev
cwd = f"/proc/{pid}/cwd"
def tree(path):
    total = 0
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                st = entry.stat(follow_symlinks=False)
                total += tree(entry.path) if entry.is_dir(follow_symlinks=False) else st.st_blocks * 512
    except OSError:
        pass
    return total
peak = samples = 0
while True:
    try:
        own = os.stat(cwd).st_dev != host
        if own:
            fs = os.statvfs(cwd)
            used = (fs.f_blocks - fs.f_bfree) * fs.f_frsize
        else:
            used = tree(cwd)
    except OSError:
        break
    samples += 1
    peak = max(peak, used)
print(peak, samples, flush=True)
`

describe.skipIf(process.platform !== 'linux').each(TIERS)(
  'the scratch bound, tier $name (SPEC §15)',
  ({options}) => {
    let engine: EngineHandle
    let base: string
    let previousTmpdir: string | undefined
    /** Interpreters of earlier runs (one may still be exiting): the sampler watches this run's. */
    const seen = new Set<number>()

    beforeAll(async () => {
      base = await mkdtemp(join(tmpdir(), 'ptc-scratch-bound-'))
      previousTmpdir = process.env.TMPDIR
      process.env.TMPDIR = base
      engine = await startEngine(createLinuxBackend(options), {
        timeout_seconds: 60,
        max_scratch_bytes: SCRATCH_BYTES,
      })
    })
    afterAll(async () => {
      await engine?.close()
      if (previousTmpdir === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = previousTmpdir
      await rm(base, {recursive: true, force: true})
    })

    test.each(Object.entries(ATTACKS))(
      '%s: fails inside the program, never over 128 MiB',
      async (label, body) => {
        const running = engine.run(program(body))
        const pid = await vi.waitFor(
          () => {
            const found = programInterpreters(process.pid).find((candidate) => !seen.has(candidate))
            if (found === undefined) throw new Error('no program yet')
            seen.add(found)
            return found
          },
          {timeout: 20_000, interval: 20},
        )
        const sampler = spawn('python3', ['-c', SAMPLER, String(pid), base], {
          stdio: ['ignore', 'pipe', 'inherit'],
        })
        let out = ''
        sampler.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk
        })
        const sampled = new Promise<void>((resolve) => {
          sampler.once('close', () => resolve())
        })
        const outcome = await running
        await sampled
        const [peak, samples] = out.trim().split(' ').map(Number) as [number, number]
        console.error(
          `[scratch-bound] ${label}: peak ${peak} bytes in ${samples} samples; ${outcome.ok ? 'ended' : outcome.error}`,
        )
        expect(samples).toBeGreaterThan(0)
        expect(outcome.output, outcome.text).toMatch(/^failed \S+ (EFBIG|ENOSPC|EPERM|EDQUOT)$/m)
        expect(peak).toBeLessThanOrEqual(PEAK_ALLOWED)
        const next = await engine.run('print(6 * 7)')
        expect(next.output).toBe('42\n')
        for (const pid of programInterpreters(process.pid)) seen.add(pid)
      },
    )
  },
)
