/**
 * Hostile programs and hostile local users against the host (SPEC §15): per-program bounds on
 * threads, memory outside RLIMIT_AS and scratch space, in every Linux tier this machine has; the
 * uid root's child runs as; and the scratch cleanup raced by another user. Each test checks the
 * server's side too: the next program runs, the server's memory stays bounded, and nothing is left
 * in the process table or on disk. Run as root and as an unprivileged user: .ci/sandbox-tiers.sh.
 */
import {execFileSync, spawn} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {chmod, mkdir, mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test, vi} from 'vitest'

import type {RunOutcome} from '../../src/execution/engine/engine.js'

import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {createLinuxBackend, RUN_UID_BASE} from '../../src/sandbox/linux/index.js'
import {noneBackend} from '../../src/sandbox/none.js'
import {
  createScratchDir,
  removeScratchDir,
  scratchRoot,
  sweepOrphanedScratchDirs,
} from '../../src/sandbox/scratch.js'
import {silentLogger} from '../../src/shared/log.js'
import {programInterpreters} from '../helpers/processes.js'
import {type EngineHandle, startEngine, testPython} from '../sandbox/harness.js'
import {details, PRELUDE, type Verdict, verdicts} from '../sandbox/programs.js'

const TIERS = [
  {name: 'bwrap', bwrap: true},
  {name: 'landlock+seccomp', bwrap: false},
].filter((tier) => !tier.bwrap || findBwrap() !== undefined)

const isRoot = process.geteuid?.() === 0
/** Thread bound (SPEC §15 default). */
const MAX_THREADS = 256
/** A small scratch bound for these tests: 32 MiB, so 8192 files. */
const SCRATCH_BYTES = 32 * 1024 ** 2
const SCRATCH_FILES = SCRATCH_BYTES / 4096
/** Growth of this process's RSS (the server) allowed across one hostile program. */
const SERVER_RSS_GROWTH = 64 * 1024 ** 2

/** Tasks (threads) of every program interpreter under this process, as the host counts them. */
function childTasks(): number {
  let tasks = 0
  for (const pid of programInterpreters(process.pid)) {
    try {
      tasks += Number(/^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
    } catch {
      // gone meanwhile
    }
  }
  return tasks
}

function runners(): number[] {
  return programInterpreters(process.pid)
}

function expectVerdicts(outcome: RunOutcome, expected: Record<string, Verdict>): void {
  const found = verdicts(outcome.output)
  for (const [label, verdict] of Object.entries(expected)) {
    expect(found.get(label), `${label}\n${outcome.text}`).toBe(verdict)
  }
  // An attempt that errored proves nothing, named above or not (probe.py's refused()).
  for (const [label, verdict] of found) expect(verdict, `${label}\n${outcome.text}`).not.toBe('ERROR')
}

describe.skipIf(process.platform !== 'linux')('hostile programs against the host', () => {
  describe.each(TIERS)('tier $name', ({bwrap}) => {
    let engine: EngineHandle
    let base: string
    let previousTmpdir: string | undefined

    beforeAll(async () => {
      // A base of its own, to see exactly what lands on disk.
      base = await mkdtemp(join(tmpdir(), 'ptc-hostile-host-'))
      previousTmpdir = process.env.TMPDIR
      process.env.TMPDIR = base
      engine = await startEngine(createLinuxBackend({bwrap}), {
        timeout_seconds: 30,
        max_scratch_bytes: SCRATCH_BYTES,
        max_output_bytes: 16_384,
      })
    })
    afterAll(async () => {
      await engine?.close()
      if (previousTmpdir === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = previousTmpdir
      await rm(base, {recursive: true, force: true})
    })

    /** Runs a hostile program; then the next program runs, memory held, nothing left behind. */
    async function hostile(code: string, during?: () => void): Promise<RunOutcome> {
      const rssBefore = process.memoryUsage().rss
      const running = engine.run(PRELUDE + code)
      const state = {done: false}
      const watched = running.then((outcome) => {
        state.done = true
        return outcome
      })
      if (during) {
        while (!state.done) {
          during()
          await new Promise((resolve) => {
            setTimeout(resolve, 20)
          })
        }
      }
      const outcome = await watched
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(SERVER_RSS_GROWTH)
      const next = await engine.run('print(6 * 7)')
      expect(next.ok, next.text).toBe(true)
      expect(next.output).toBe('42\n')
      await vi.waitFor(() => expect(runners().length === 0).toBe(true), {timeout: 10_000})
      await vi.waitFor(() => expect(readdirSync(scratchRoot(base)).length === 0).toBe(true), {
        timeout: 10_000,
      })
      return outcome
    }

    test('a thread bomb with a small stack stops at the thread bound; the host counts no more', async () => {
      let peak = 0
      const outcome = await hostile(
        `
import threading, time
threading.stack_size(32768)
release = threading.Event()
started, error = 0, None
try:
    while started < 100_000:
        threading.Thread(target=release.wait, daemon=True).start()
        started += 1
except RuntimeError as exc:
    error = str(exc)
print("started", started, error)
time.sleep(1)  # held while the host counts
release.set()
`,
        () => {
          peak = Math.max(peak, childTasks())
        },
      )
      expect(outcome.ok, outcome.text).toBe(true)
      const [, started, error] = /^started (\d+) (.*)$/m.exec(outcome.output) ?? []
      expect(Number(started)).toBeGreaterThan(100)
      expect(Number(started)).toBeLessThan(MAX_THREADS)
      expect(error).toBe("can't start new thread")
      expect(peak).toBeGreaterThan(100)
      expect(peak).toBeLessThanOrEqual(MAX_THREADS)
      console.error(
        `[hostile-host] ${bwrap ? 'bwrap' : 'landlock'}: threads reached ${started}, host peak ${peak}`,
      )
    })

    test('variants: _thread.start_new_thread, fork and spawn are all bounded or refused', async () => {
      const outcome = await hostile(`
import _thread, threading
threading.stack_size(32768)
lock = _thread.allocate_lock(); lock.acquire()
n = 0
try:
    while n < 100_000:
        _thread.start_new_thread(lock.acquire, ())
        n += 1
except RuntimeError:
    pass
print("raw threads", n)
attempt("fork", lambda: os.fork())
attempt("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {}))
attempt("clone a process", lambda: raw("clone", 17, 0, 0, 0, 0))
`)
      expect(Number(/^raw threads (\d+)$/m.exec(outcome.output)?.[1])).toBeLessThan(MAX_THREADS)
      expectVerdicts(outcome, {fork: 'refused', posix_spawn: 'refused', 'clone a process': 'refused'})
    })

    test('two thread bombs at once: each program has its own bound, not a shared one', async () => {
      const bomb = `
import threading, time
threading.stack_size(32768)
release = threading.Event(); n = 0
try:
    while n < 100_000:
        threading.Thread(target=release.wait, daemon=True).start(); n += 1
except RuntimeError:
    pass
time.sleep(1.5)
print("started", n)
release.set()
`
      const [a, b] = await Promise.all([engine.run(bomb), engine.run(bomb)])
      for (const outcome of [a, b]) {
        const started = Number(/^started (\d+)$/m.exec(outcome.output)?.[1])
        expect(started, outcome.text).toBeGreaterThan(MAX_THREADS / 2)
        expect(started).toBeLessThan(MAX_THREADS)
      }
      await vi.waitFor(() => expect(runners().length === 0).toBe(true), {timeout: 10_000})
    })

    test('memory outside RLIMIT_AS: memfd, POSIX and SysV shared memory are refused', async () => {
      const outcome = await hostile(`
import mmap
MEMFD = {"x86_64": 319, "aarch64": 279}[platform.machine()]
SHMGET = {"x86_64": 29, "aarch64": 194}[platform.machine()]
_NR.update({"memfd_create": MEMFD, "shmget": SHMGET})
def hold_memfd():
    fd = os.memfd_create("hog")
    os.ftruncate(fd, 3 << 30)
    m = mmap.mmap(fd, 3 << 30)
    for offset in range(0, 3 << 30, 4096):
        m[offset] = 1
attempt("memfd 3 GiB", hold_memfd)
attempt("raw memfd_create", lambda: raw("memfd_create", ctypes.c_char_p(b"hog"), 0))
attempt("shm_open", lambda: open("/dev/shm/ptc-hog", "wb").write(b"x" * (1 << 20)))
attempt("SysV shmget", lambda: raw("shmget", 0, 1 << 30, 0o1600))
attempt("64 GiB anonymous", lambda: bytearray(64 << 30), MemoryError)
control("anonymous 64 MiB", lambda: bytearray(64 << 20))
`)
      expectVerdicts(outcome, {
        'memfd 3 GiB': 'refused',
        'raw memfd_create': 'refused',
        shm_open: 'refused',
        'SysV shmget': 'refused',
        '64 GiB anonymous': 'refused',
        'anonymous 64 MiB': 'ok',
      })
      expect(details(outcome.output).get('memfd 3 GiB')).toMatch(/^PermissionError/)
    })

    test('filling the scratch space stops at max_scratch_bytes; nothing reaches the host disk', async () => {
      let onHost = 0
      const outcome = await hostile(
        `
import errno, time
def fill_bytes():
    written, error = 0, None
    fd = os.open("fill", os.O_CREAT | os.O_WRONLY)
    chunk = b"\\1" * (1 << 20)
    try:
        while written < (1 << 30):
            written += os.write(fd, chunk)
    except OSError as exc:
        error = errno.errorcode[exc.errno]
    os.close(fd)
    return written, error
print("one file", *fill_bytes())
os.unlink("fill")
written = 0
try:
    for n in range(64):
        with open(f"part-{n}", "wb") as f:
            for _ in range(4):
                written += f.write(b"\\1" * (1 << 20))
except OSError as exc:
    print("many files", written, errno.errorcode[exc.errno])
for name in os.listdir("."):
    if os.path.isfile(name):
        os.unlink(name)
files, error = 0, None
try:
    while files < 1_000_000:
        os.close(os.open(f"f{files}", os.O_CREAT | os.O_WRONLY)); files += 1
except OSError as exc:
    error = errno.errorcode[exc.errno]
print("empty files", files, error)
time.sleep(1)  # held while the host looks
`,
        () => {
          for (const dir of existsSync(scratchRoot(base)) ? readdirSync(scratchRoot(base)) : []) {
            try {
              onHost = Math.max(onHost, readdirSync(join(scratchRoot(base), dir)).length)
            } catch {
              // removed meanwhile
            }
          }
        },
      )
      expect(outcome.ok, outcome.text).toBe(true)
      const [, bytes, bytesError] = /^one file (\d+) (\w+)$/m.exec(outcome.output) ?? []
      expect(Number(bytes)).toBeGreaterThan(SCRATCH_BYTES / 2)
      expect(Number(bytes)).toBeLessThanOrEqual(SCRATCH_BYTES)
      // Full tmpfs, or RLIMIT_FSIZE (min(64 MiB, max_scratch_bytes)): whichever comes first.
      expect(['ENOSPC', 'EFBIG']).toContain(bytesError)
      const [, many, manyError] = /^many files (\d+) (\w+)$/m.exec(outcome.output) ?? []
      expect(Number(many)).toBeLessThanOrEqual(SCRATCH_BYTES)
      expect(manyError).toBe('ENOSPC')
      const [, files, filesError] = /^empty files (\d+) (\w+)$/m.exec(outcome.output) ?? []
      expect(Number(files)).toBeGreaterThan(SCRATCH_FILES / 2)
      expect(Number(files)).toBeLessThanOrEqual(SCRATCH_FILES)
      expect(filesError).toBe('ENOSPC')
      expect(onHost).toBe(0)
      console.error(
        `[hostile-host] ${bwrap ? 'bwrap' : 'landlock'}: scratch bytes before the bound ${bytes}, files ${files}`,
      )
    })

    test('a directory the program made unreadable (mkdir 0o300) leaves nothing behind', async () => {
      const outcome = await hostile(`
os.mkdir("locked", 0o700)
for n in range(50):
    open(f"locked/{n}", "w").write("x")
os.mkdir("locked/deeper")
open("locked/deeper/f", "w").write("x")
os.rename("locked", "was-locked")
os.mkdir("closed", 0o300)
os.mkdir("none", 0o000)
print("made")
`)
      expect(outcome.ok, outcome.text).toBe(true)
    })

    test("the program never runs as root, and still imports the standard library from the interpreter's own place", async () => {
      const outcome = await hostile(`
import json, csv, decimal, zoneinfo, sqlite3, unicodedata, hashlib, statistics, sys
zoneinfo.ZoneInfo("Europe/Paris")
sqlite3.connect(":memory:").execute("select 1")
print("UID", os.getuid(), os.geteuid(), os.getgid())
print("PREFIX", sys.prefix)
attempt("become root again", lambda: os.setuid(0))
`)
      expect(outcome.ok, outcome.text).toBe(true)
      const [, uid, euid] = /^UID (\d+) (\d+) (\d+)$/m.exec(outcome.output) ?? []
      expect(Number(uid)).not.toBe(0)
      expect(euid).toBe(uid)
      if (isRoot) expect(Number(uid) - RUN_UID_BASE).toBeGreaterThanOrEqual(0)
      expect(outcome.output).toContain(`PREFIX ${pythonPrefix()}`)
      expectVerdicts(outcome, {'become root again': 'refused'})
    })
  })

  describe('without namespaces of its own (a host with neither user namespaces nor mounts)', () => {
    let engine: EngineHandle
    let base: string
    let previousTmpdir: string | undefined

    beforeAll(async () => {
      base = await mkdtemp(join(tmpdir(), 'ptc-hostile-watched-'))
      previousTmpdir = process.env.TMPDIR
      process.env.TMPDIR = base
      engine = await startEngine(createLinuxBackend({bwrap: false, ownNamespaces: false}), {
        timeout_seconds: 30,
        max_scratch_bytes: SCRATCH_BYTES,
      })
    })
    afterAll(async () => {
      await engine?.close()
      if (previousTmpdir === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = previousTmpdir
      await rm(base, {recursive: true, force: true})
    })

    /** Bytes under the scratch root now (allocated blocks), as the host's disk holds them. */
    function onDisk(): number {
      try {
        return Number(execFileSync('du', ['-sB1', scratchRoot(base)], {encoding: 'utf8'}).split('\t')[0])
      } catch {
        return 0
      }
    }

    test('the server watches the scratch dir and ends the program at max_scratch_bytes', async () => {
      let peak = 0
      const running = engine.run(`
import os
for n in range(100_000):
    with open(f"part-{n}", "wb") as f:
        for _ in range(4):
            f.write(b"\\1" * (1 << 20))
`)
      const state = {done: false}
      const watched = running.then((outcome) => {
        state.done = true
        return outcome
      })
      while (!state.done) {
        peak = Math.max(peak, onDisk())
        await new Promise((resolve) => {
          setTimeout(resolve, 50)
        })
      }
      const outcome = await watched
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toMatch(
        /more than 33554432 bytes in its scratch directory \(execution\.max_scratch_bytes\)/,
      )
      // The watch ends it as the files grow (inotify), often before this 50 ms sampler sees much of
      // it: what bounds the disk is the limit plus what lands while an event reaches the server.
      expect(peak).toBeLessThan(SCRATCH_BYTES + 512 * 1024 ** 2)
      console.error(`[hostile-host] watched scratch: peak on disk ${peak} bytes against ${SCRATCH_BYTES}`)
      const next = await engine.run('print(6 * 7)')
      expect(next.output).toBe('42\n')
      await vi.waitFor(() => expect(readdirSync(scratchRoot(base)).length === 0).toBe(true), {
        timeout: 10_000,
      })
    })

    test('and at its file count', async () => {
      const outcome = await engine.run(`
import os
for n in range(10_000_000):
    os.close(os.open(f"f{n}", os.O_CREAT | os.O_WRONLY))
`)
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toMatch(/more than 8192 files in its scratch directory/)
      await vi.waitFor(() => expect(readdirSync(scratchRoot(base)).length === 0).toBe(true), {
        timeout: 30_000,
      })
    })

    test('directories the program made unreadable on the host disk are removed with their files', async () => {
      const outcome = await engine.run(
        PRELUDE +
          `
import os
# No chmod in the sandbox: the modes come with mkdir. wx without r: files go in, no one lists them.
os.mkdir("locked", 0o300)
os.mkdir("locked/inner", 0o300)
for n in range(20):
    open(f"locked/inner/{n}", "w").write("x")
open("locked/f", "w").write("x")
os.makedirs("sealed/inner")
open("sealed/inner/f", "w").write("x")
os.mkdir("sealed/empty", 0o000)
attempt("list locked", lambda: os.listdir("locked"))
print(sorted(os.listdir(".")))
`,
      )
      expect(outcome.ok, outcome.text).toBe(true)
      // Unreadable even to its owner: the cleanup has to give the permission back first.
      expectVerdicts(outcome, {'list locked': 'refused'})
      await vi.waitFor(() => expect(readdirSync(scratchRoot(base)).length === 0).toBe(true), {
        timeout: 10_000,
      })
    })

    test('sandbox: none is watched the same way', async () => {
      const none = await startEngine(noneBackend, {timeout_seconds: 30, max_scratch_bytes: SCRATCH_BYTES})
      try {
        const outcome = await none.run(`
for n in range(100_000):
    with open(f"part-{n}", "wb") as f:
        f.write(b"\\1" * (4 << 20))
`)
        expect(outcome.ok).toBe(false)
        expect(outcome.error).toMatch(/more than 33554432 bytes in its scratch directory/)
      } finally {
        await none.close()
      }
      expect(readdirSync(scratchRoot(base))).toEqual([])
    })

    test('the fallback is what the backend reports', async () => {
      const python = await import('../../src/execution/engine/python.js').then((m) =>
        m.resolvePython(testPython()),
      )
      const checked = await createLinuxBackend({bwrap: false, ownNamespaces: false}).check(python)
      expect(checked.bounds?.scratch).toMatch(/^on the host file system, watched by the server/)
    })
  })

  test('the backend reports which bounds are in force (doctor shows them)', async () => {
    const python = await import('../../src/execution/engine/python.js').then((m) =>
      m.resolvePython(testPython()),
    )
    for (const {bwrap} of TIERS) {
      const checked = await createLinuxBackend({bwrap}).check(python)
      expect(checked.bounds?.threads).toMatch(/^256 \((a uid of its own|user namespace)\)$/)
      expect(checked.bounds?.scratch).toMatch(/^tmpfs of \d+ bytes and \d+ files$/)
      expect(checked.bounds?.memory).toMatch(/memfd and shared memory refused/)
    }
  })
})

function pythonPrefix(): string {
  return execFileSync(testPython(), ['-I', '-S', '-c', 'import sys; print(sys.prefix)'], {
    encoding: 'utf8',
  }).trim()
}

/**
 * The attack from the issue, against a root ptc-mcp: another user, in a loop, swaps a directory
 * of a tree being removed for a symlink to a root-only directory (renameat2 RENAME_EXCHANGE), and
 * plants `ptc-run-<dead pid>-*` trees in the shared temporary directory for the sweep to follow.
 */
describe.runIf(process.platform === 'linux' && isRoot)('a local user racing the scratch cleanup', () => {
  const RACER_UID = 54_321
  let base: string
  let victim: string
  const victimFiles = 200

  let tmpMode = 0

  beforeAll(async () => {
    // The test run's TMPDIR is 0700: let the racer traverse it (not list it), as it could /tmp.
    tmpMode = statSync(tmpdir()).mode % 0o1000
    await chmod(tmpdir(), 0o711)
    base = await mkdtemp(join(tmpdir(), 'ptc-racer-'))
    // Like /tmp: everyone may create entries, the sticky bit keeps them apart.
    await chmod(base, 0o1777)
    victim = join(tmpdir(), `ptc-racer-victim-${process.pid}`)
    await mkdir(victim, {mode: 0o700})
    await Promise.all(
      Array.from({length: victimFiles}, (_, n) => writeFile(join(victim, `precious-${n}`), 'x')),
    )
  })
  afterAll(async () => {
    await rm(base, {recursive: true, force: true})
    await rm(victim, {recursive: true, force: true})
    await chmod(tmpdir(), tmpMode)
  })

  /**
   * Starts the racer as another user; resolves once it has begun swapping. `swaps()`: the count
   * it last reported (every 100 loops); `stop()` kills it and returns that count.
   */
  async function startRacer(script: string): Promise<{swaps(): number; stop(): Promise<number>}> {
    const racer = spawn(
      'setpriv',
      [
        '--reuid',
        String(RACER_UID),
        '--regid',
        String(RACER_UID),
        '--clear-groups',
        '/usr/bin/python3',
        '-c',
        script,
        base,
        victim,
      ],
      {stdio: ['ignore', 'pipe', 'inherit']},
    )
    let out = ''
    racer.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
    })
    await vi.waitFor(() => expect(out.includes('racing')).toBe(true), {timeout: 10_000})
    const swaps = (): number => Number([...out.matchAll(/swaps (\d+)/g)].at(-1)?.[1] ?? 0)
    return {
      swaps,
      async stop() {
        racer.kill('SIGKILL')
        await new Promise((resolve) => {
          racer.once('close', resolve)
        })
        return swaps()
      },
    }
  }

  const RENAME_EXCHANGE = String.raw`
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
def exchange(a, b):
    return libc.renameat2(-100, a.encode(), -100, b.encode(), 2) == 0
`

  test('removal never follows a directory swapped for a symlink mid-walk: no file outside is removed', async () => {
    // The tree being removed holds a directory the racer may write to (as a program's scratch or
    // a shared temp dir might); the racer swaps it with a symlink to the victim, in a loop.
    const rounds = 20
    let swaps = 0
    for (let round = 0; round < rounds; round++) {
      const tree = join(base, `tree-${round}`)
      const open = join(tree, 'open')
      await mkdir(open, {recursive: true, mode: 0o777})
      await chmod(open, 0o777)
      await Promise.all(Array.from({length: 50}, (_, n) => writeFile(join(open, `f${n}`), 'x')))
      const racer = await startRacer(`${RENAME_EXCHANGE}
tree, victim = sys.argv[1] + "/tree-${round}", sys.argv[2]
link, d = tree + "/open/l", tree + "/open/d"
os.mkdir(d)
for n in range(50):
    open(f"{d}/g{n}", "w").close()
os.symlink(victim, link)
print("racing", flush=True)
n = loops = 0
while True:
    if exchange(d, link):
        n += 1
    loops += 1
    if loops % 100 == 0:
        print("swaps", n, flush=True)
`)
      // The removal starts while the racer is swapping, not before it has begun.
      await vi.waitFor(() => expect(racer.swaps() > 0).toBe(true), {timeout: 10_000})
      await removeScratchDir(tree).catch(() => {})
      swaps += await racer.stop()
      await rm(tree, {recursive: true, force: true})
    }
    expect(swaps).toBeGreaterThan(0)
    expect((await readdir(victim)).length).toBe(victimFiles)
  })

  test("the sweep never touches another user's ptc-run-<dead pid>-* trees, even while they are swapped", async () => {
    const racer = await startRacer(`${RENAME_EXCHANGE}
base, victim = sys.argv[1], sys.argv[2]
trees = []
for n in range(8):
    t = f"{base}/ptc-run-{4_000_000 + n}-planted"
    os.makedirs(t + "/d")
    open(t + "/d/f", "w").close()
    os.symlink(victim, t + "/l")
    trees.append(t)
# Squatting the scratch root fails: root made it first (the test checks squatting on its own).
print("racing", flush=True)
n = loops = 0
while True:
    for t in trees:
        if exchange(t + "/d", t + "/l"):
            n += 1
    loops += 1
    if loops % 100 == 0:
        print("swaps", n, flush=True)
`)
    // Root's own scratch exists (as after a run) and is swept alongside.
    const mine = await createScratchDir(base)
    await removeScratchDir(mine)
    // At least 50 sweeps, and on until the racer has swapped (on a loaded machine it may not have
    // run yet): a sweep that never met a swap would prove nothing.
    const deadline = Date.now() + 30_000
    for (let round = 0; round < 50 || (racer.swaps() === 0 && Date.now() < deadline); round++)
      await sweepOrphanedScratchDirs(silentLogger, base)
    const swaps = await racer.stop()
    expect(swaps).toBeGreaterThan(0)
    expect((await readdir(victim)).length).toBe(victimFiles)
    expect(readdirSync(base).filter((name) => name.startsWith('ptc-run-'))).toHaveLength(8)
  })

  test('a scratch root another user made first is left alone (a fresh private root is used), and their files stay', async () => {
    const squatted = await mkdtemp(join(tmpdir(), 'ptc-racer-squat-'))
    try {
      await chmod(squatted, 0o1777)
      execFileSync('setpriv', [
        '--reuid',
        String(RACER_UID),
        '--regid',
        String(RACER_UID),
        '--clear-groups',
        '/usr/bin/python3',
        '-c',
        `import os; r = ${JSON.stringify(scratchRoot(squatted))}; os.mkdir(r, 0o700); os.symlink(${JSON.stringify(victim)}, r + "/ptc-run-1-x")`,
      ])
      const dir = await createScratchDir(squatted)
      expect(dir.startsWith(`${scratchRoot(squatted)}-${process.pid}-`)).toBe(true)
      await removeScratchDir(dir)
      await sweepOrphanedScratchDirs(silentLogger, squatted)
      expect((await readdir(victim)).length).toBe(victimFiles)
    } finally {
      await rm(squatted, {recursive: true, force: true})
    }
  })
})
