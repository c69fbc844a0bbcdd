import {createSocket, type Socket as UdpSocket} from 'node:dgram'
/**
 * Escape attempts against the real linux backend, through the real engine (SPEC §7, §10), in every
 * tier this machine has: with bwrap when it is installed, and with Landlock + seccomp alone. Each
 * attempt is paired with a control that must work, so a sandbox that breaks everything cannot pass.
 * Run as root and as an unprivileged user: .ci/sandbox-tiers.sh.
 */
import {existsSync, readFileSync, statSync} from 'node:fs'
import {chmod, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {createServer as createNetServer, type Server} from 'node:net'
import {homedir, tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import type {RunOutcome} from '../../src/execution/engine/engine.js'

import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {createLinuxBackend, RUN_UID_BASE} from '../../src/sandbox/linux/index.js'
import {type EngineHandle, startEngine} from '../sandbox/harness.js'
import {details, PRELUDE, py, type Verdict, verdicts} from '../sandbox/programs.js'

const TIERS = [
  {name: 'bwrap', bwrap: true, tier: /^linux:bwrap\+landlock\+seccomp$/},
  {name: 'landlock+seccomp', bwrap: false, tier: /^linux:landlock\+seccomp$/},
].filter((tier) => !tier.bwrap || findBwrap() !== undefined)

const SECRET = 'ptc-escape-secret-value'

/** Files and listeners outside the sandbox that programs try to reach. */
interface Outside {
  dir: string
  /** Writable by everyone (0666 in a 0777 dir): only the sandbox stands in the way. */
  victim: string
  victimText: string
  sshKey: string
  tcpPort: number
  tcp6Port: number | undefined
  udpPort: number
  unixPath: string
  abstractName: string
  connections: string[]
}

let outside: Outside
const servers: Server[] = []
let udp: UdpSocket
let createdSshDir: string | undefined

async function listen(server: Server, ...args: unknown[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    const listenOn = server.listen.bind(server) as (...a: unknown[]) => void
    listenOn(...args, () => resolve())
  })
}

beforeAll(async () => {
  process.env.PTC_ESCAPE_SECRET = SECRET
  const dir = await mkdtemp(join(tmpdir(), 'ptc-escape-outside-'))
  await chmod(dir, 0o777)
  const victim = join(dir, 'victim.txt')
  const victimText = 'outside the sandbox\n'
  await writeFile(victim, victimText)
  await chmod(victim, 0o666)
  // A key in ~/.ssh when that can be made, else a stand-in next to the victim.
  let sshKey = join(dir, 'id_ed25519')
  try {
    const ssh = join(homedir(), '.ssh')
    // mkdir returns the first directory it made: that one is removed again afterwards.
    createdSshDir = await mkdir(ssh, {recursive: true, mode: 0o700})
    sshKey = join(ssh, `ptc-escape-test-${process.pid}`)
  } catch {
    // no writable home
  }
  await writeFile(sshKey, '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n', {mode: 0o600})
  const connections: string[] = []
  const track = (name: string) => () => connections.push(name)
  const tcp = createNetServer(track('tcp'))
  await listen(tcp, 0, '127.0.0.1')
  servers.push(tcp)
  let tcp6Port: number | undefined
  try {
    const tcp6 = createNetServer(track('tcp6'))
    await listen(tcp6, 0, '::1')
    servers.push(tcp6)
    tcp6Port = (tcp6.address() as {port: number}).port
  } catch {
    tcp6Port = undefined // no IPv6 loopback here
  }
  const unixPath = join(dir, 'listener.sock')
  const unix = createNetServer(track('unix'))
  await listen(unix, unixPath)
  await chmod(unixPath, 0o777)
  servers.push(unix)
  const abstractName = `ptc-escape-${process.pid}`
  const abstract = createNetServer(track('abstract'))
  await listen(abstract, `\0${abstractName}`)
  servers.push(abstract)
  udp = createSocket('udp4')
  udp.on('message', () => connections.push('udp'))
  await new Promise<void>((resolve) => {
    udp.bind(0, '127.0.0.1', resolve)
  })
  outside = {
    dir,
    victim,
    victimText,
    sshKey,
    tcpPort: (tcp.address() as {port: number}).port,
    tcp6Port,
    udpPort: udp.address().port,
    unixPath,
    abstractName,
    connections,
  }
})

afterAll(async () => {
  for (const server of servers) server.close()
  udp?.close()
  if (outside) {
    await rm(outside.sshKey, {force: true})
    if (createdSshDir) await rm(createdSshDir, {recursive: true, force: true})
    await rm(outside.dir, {recursive: true, force: true})
  }
})

function expectVerdicts(outcome: RunOutcome, expected: Record<string, Verdict>): void {
  const found = verdicts(outcome.output)
  const report = `${outcome.text}`
  for (const [label, verdict] of Object.entries(expected)) {
    expect(found.get(label), `${label}\n${report}`).toBe(verdict)
  }
  // Every step, named above or not: an attempt that errored proves nothing (probe.py's refused()).
  for (const [label, verdict] of found) {
    expect(verdict === 'refused' || verdict === 'ok', `${label}: ${verdict}\n${report}`).toBe(true)
  }
}

describe.skipIf(process.platform !== 'linux')('linux sandbox escape attempts', () => {
  test('at least the Landlock + seccomp tier is exercised', () => {
    expect(TIERS.map((tier) => tier.name)).toContain('landlock+seccomp')
  })

  describe.each(TIERS)('tier $name', ({bwrap, tier}) => {
    let engine: EngineHandle
    const run = (code: string) => engine.run(PRELUDE + code)

    beforeAll(async () => {
      engine = await startEngine(createLinuxBackend({bwrap}), {timeout_seconds: 20, warm_pool: 2})
    })
    afterAll(async () => {
      await engine?.close()
    })

    test('reports the tier in force, and every program runs in it', async () => {
      const outcome = await run('print("hello")')
      expect(outcome.ok, outcome.text).toBe(true)
      expect(outcome.output).toBe('hello\n')
      expect(outcome.sandbox).toMatch(tier)
    })

    describe.concurrent('files', () => {
      test('reading /etc/passwd and a key in ~/.ssh is refused; a scratch file can be read', async () => {
        const outcome = await run(`
attempt("passwd", lambda: open("/etc/passwd").read())
attempt("ssh key", lambda: open(${py(outside.sshKey)}).read())
attempt("victim", lambda: open(${py(outside.victim)}).read())
with open("mine.txt", "w") as f:
    f.write("mine")
control("scratch read", lambda: open("mine.txt").read() == "mine" or 1 / 0)
`)
        expectVerdicts(outcome, {
          passwd: 'refused',
          'ssh key': 'refused',
          victim: 'refused',
          'scratch read': 'ok',
        })
      })

      test('listing / and the home directory is refused; the scratch dir can be listed', async () => {
        const outcome = await run(`
attempt("list /", lambda: os.listdir("/"))
attempt("list home", lambda: os.listdir(${py(homedir())}))
attempt("list outside dir", lambda: os.listdir(${py(outside.dir)}))
open("a", "w").close()
control("list scratch", lambda: sorted(os.listdir(".")) == ["a", "session"] or 1 / 0)
`)
        expectVerdicts(outcome, {
          'list /': 'refused',
          'list home': 'refused',
          'list outside dir': 'refused',
          'list scratch': 'ok',
        })
      })

      test('../ traversal out of the scratch dir is refused; a subdirectory works', async () => {
        const escaped = `ptc-escape-dotdot-${process.pid}-${Date.now()}`
        const outcome = await run(`
attempt("dotdot read", lambda: open("../" * 12 + "etc/passwd").read())
attempt("dotdot list root", lambda: os.listdir("../" * 12))
attempt("dotdot write root", lambda: open("../" * 12 + "${escaped}", "w").write("x"))
# One level up is the host's /tmp without bwrap, and the private scratch tmpfs with it.
try:
    open("../${escaped}", "w").write("x")
    print("dotdot write parent: private")
except OSError as exc:
    print(f"dotdot write parent: refused ({exc})")
os.mkdir("sub")
control("subdir", lambda: open("sub/../sub/f.txt", "w").write("x"))
`)
        expectVerdicts(outcome, {
          'dotdot read': 'refused',
          'dotdot list root': 'refused',
          'dotdot write root': 'refused',
          subdir: 'ok',
        })
        expect(outcome.output).toMatch(
          bwrap ? /^dotdot write parent: private/m : /^dotdot write parent: refused/m,
        )
        expect(existsSync(join(tmpdir(), escaped))).toBe(false)
        expect(existsSync(join('/', escaped))).toBe(false)
      })

      test('/proc, /sys and /dev/tty are out of reach; /dev/null works', async () => {
        const outcome = await run(`
attempt("mounts", lambda: open("/proc/self/mounts").read())
attempt("proc 1", lambda: open("/proc/1/cmdline").read())
attempt("sys", lambda: os.listdir("/sys/class"))
attempt("tty", lambda: open("/dev/tty", "w").write("boo"))
control("devnull", lambda: open(os.devnull, "w").write("x"))
`)
        expectVerdicts(outcome, {
          mounts: 'refused',
          'proc 1': 'refused',
          sys: 'refused',
          tty: 'refused',
          devnull: 'ok',
        })
      })

      test('writing /tmp of the host, ~/.bashrc and /dev/shm is refused; writing the scratch dir works', async () => {
        const marker = `ptc-escape-marker-${process.pid}-${Date.now()}`
        const outcome = await run(`
try:
    with open("/tmp/${marker}", "w") as f:
        f.write("x")
    print("tmp: private")  # inside bwrap /tmp is the private scratch tmpfs: the host never sees it
except OSError as exc:
    print(f"tmp: refused ({exc})")
attempt("bashrc", lambda: open(${py(join(homedir(), '.bashrc'))}, "a"))
attempt("shm", lambda: open("/dev/shm/${marker}", "w").write("x"))
attempt("outside dir", lambda: open(${py(join(outside.dir, marker))}, "w").write("x"))
control("scratch write", lambda: open("${marker}", "w").write("x"))
`)
        expectVerdicts(outcome, {
          bashrc: 'refused',
          shm: 'refused',
          'outside dir': 'refused',
          'scratch write': 'ok',
        })
        expect(outcome.output).toMatch(bwrap ? /^tmp: (private|refused)/m : /^tmp: refused/m)
        expect(existsSync(join('/tmp', marker))).toBe(false)
        expect(existsSync(join('/dev/shm', marker))).toBe(false)
        expect(existsSync(join(outside.dir, marker))).toBe(false)
      })

      test('truncate, chmod, utime, unlink, rename and hard-link of an outside file are refused; the same inside works', async () => {
        const victim = py(outside.victim)
        const outcome = await run(`
attempt("truncate", lambda: os.truncate(${victim}, 0))
attempt("open for write", lambda: open(${victim}, "r+"))
attempt("chmod", lambda: os.chmod(${victim}, 0o777))
attempt("utime", lambda: os.utime(${victim}, (0, 0)))
attempt("unlink", lambda: os.unlink(${victim}))
attempt("rename", lambda: os.rename(${victim}, ${py(outside.victim + '.moved')}))
attempt("rename into scratch", lambda: os.rename(${victim}, "stolen.txt"))
attempt("hard link", lambda: os.link(${victim}, "linked.txt"))
with open("inside.txt", "w") as f:
    f.write("0123456789")
control("truncate inside", lambda: os.truncate("inside.txt", 3))
control("rename inside", lambda: os.rename("inside.txt", "renamed.txt"))
control("link inside", lambda: os.link("renamed.txt", "again.txt"))
control("unlink inside", lambda: os.unlink("again.txt"))
`)
        expectVerdicts(outcome, {
          truncate: 'refused',
          'open for write': 'refused',
          chmod: 'refused',
          utime: 'refused',
          unlink: 'refused',
          rename: 'refused',
          'rename into scratch': 'refused',
          'hard link': 'refused',
          'truncate inside': 'ok',
          'rename inside': 'ok',
          'link inside': 'ok',
          'unlink inside': 'ok',
        })
        expect(readFileSync(outside.victim, 'utf8')).toBe(outside.victimText)
        expect(statSync(outside.victim).mode % 0o1000).toBe(0o666)
      })

      test('a symlink out of the scratch dir cannot be read or written through; one inside can', async () => {
        const outcome = await run(`
os.symlink(${py(outside.victim)}, "out")
os.symlink("/etc/passwd", "passwd")
attempt("read through link", lambda: open("out").read())
attempt("write through link", lambda: open("out", "w").write("pwned"))
attempt("passwd through link", lambda: open("passwd").read())
with open("real.txt", "w") as f:
    f.write("real")
os.symlink("real.txt", "in")
control("link inside", lambda: open("in").read() == "real" or 1 / 0)
`)
        expectVerdicts(outcome, {
          'read through link': 'refused',
          'write through link': 'refused',
          'passwd through link': 'refused',
          'link inside': 'ok',
        })
        expect(readFileSync(outside.victim, 'utf8')).toBe(outside.victimText)
      })

      test('device nodes and fifos cannot be made; directories can', async () => {
        const outcome = await run(`
import stat
attempt("mknod char", lambda: os.mknod("null2", stat.S_IFCHR | 0o666, os.makedev(1, 3)))
attempt("mknod block", lambda: os.mknod("sda", stat.S_IFBLK | 0o666, os.makedev(8, 0)))
attempt("mkfifo", lambda: os.mkfifo("fifo"))
control("mkdir", lambda: os.makedirs("a/b/c"))
`)
        expectVerdicts(outcome, {
          'mknod char': 'refused',
          'mknod block': 'refused',
          mkfifo: 'refused',
          mkdir: 'ok',
        })
      })

      test('a file over the size limit is cut off; a small file is fine', async () => {
        const outcome = await run(`
def big():
    with open("big.bin", "wb") as f:
        for _ in range(80):
            f.write(b"\\0" * (1024 * 1024))
attempt("80 MiB file", big)
control("1 MiB file", lambda: open("small.bin", "wb").write(b"\\0" * (1024 * 1024)))
`)
        expectVerdicts(outcome, {'80 MiB file': 'refused', '1 MiB file': 'ok'})
      })
    })

    describe.concurrent('processes', () => {
      test('subprocess, os.system, fork, posix_spawn and exec are refused; threads work', async () => {
        const outcome = await run(`
import subprocess, threading
attempt("subprocess", lambda: subprocess.run(["/bin/true"]))
status = os.system("touch system-ran")
report("refused", "os.system", status != 0 and not os.path.exists("system-ran"), status)
def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    return pid
attempt("fork", fork)
attempt("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {}))
attempt("execv", lambda: os.execv(sys.executable, [sys.executable, "-c", "print('exec: ALLOWED')"]))
attempt("execve", lambda: os.execve("/bin/sh", ["sh", "-c", "echo exec-sh: ALLOWED"], {}))
results = []
threads = [threading.Thread(target=lambda i=i: results.append(i)) for i in range(16)]
for t in threads: t.start()
for t in threads: t.join()
control("threads", lambda: sorted(results) == list(range(16)) or 1 / 0)
`)
        expectVerdicts(outcome, {
          subprocess: 'refused',
          'os.system': 'refused',
          fork: 'refused',
          posix_spawn: 'refused',
          execv: 'refused',
          execve: 'refused',
          threads: 'ok',
        })
      })

      test('clone with namespace flags and a fork bomb are refused; asyncio and a thread pool work', async () => {
        const outcome = await run(`
import asyncio, concurrent.futures
SIGCHLD = 17
CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWNS, CLONE_THREAD, CLONE_VM, CLONE_SIGHAND = 0x10000000, 0x40000000, 0x20000, 0x10000, 0x100, 0x800
attempt("clone newuser", lambda: raw("clone", CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0))
attempt("clone newnet", lambda: raw("clone", CLONE_NEWNET | CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0))
attempt("clone thread+newnet", lambda: raw("clone", CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_NEWNET, 0, 0, 0, 0))
def bomb():
    while True:
        if os.fork() == 0:
            os._exit(0)
attempt("fork bomb", bomb)
gathered = await asyncio.gather(*(asyncio.sleep(0.01, i) for i in range(50)))
control("asyncio", lambda: gathered == list(range(50)) or 1 / 0)
def pool():
    with concurrent.futures.ThreadPoolExecutor(8) as executor:
        assert list(executor.map(lambda x: x * x, range(100)))[-1] == 9801
control("thread pool", pool)
`)
        expectVerdicts(outcome, {
          'clone newuser': 'refused',
          'clone newnet': 'refused',
          'clone thread+newnet': 'refused',
          'fork bomb': 'refused',
          asyncio: 'ok',
          'thread pool': 'ok',
        })
      })
    })

    describe.concurrent('network', () => {
      test('TCP, UDP, IPv6, unix and netlink sockets and DNS are refused; socketpair works', async () => {
        const before = outside.connections.length
        const outcome = await run(`
import socket
def tcp():
    s = socket.create_connection(("127.0.0.1", ${outside.tcpPort}), timeout=3)
    s.sendall(b"hello")
attempt("tcp", tcp)
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"hello", ("127.0.0.1", ${outside.udpPort}))
attempt("udp", udp)
def tcp6():
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(("::1", ${outside.tcp6Port ?? 9}))
attempt("tcp6", tcp6)
def unix(address):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(address)
attempt("unix path", lambda: unix(${py(outside.unixPath)}))
attempt("unix abstract", lambda: unix("\\0" + ${py(outside.abstractName)}))
attempt("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
attempt("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
attempt("listen", lambda: socket.create_server(("127.0.0.1", 0)))
def pair():
    a, b = socket.socketpair()
    a.sendall(b"ping")
    assert b.recv(4) == b"ping"
control("socketpair", pair)
`)
        expectVerdicts(outcome, {
          tcp: 'refused',
          udp: 'refused',
          tcp6: 'refused',
          'unix path': 'refused',
          'unix abstract': 'refused',
          netlink: 'refused',
          packet: 'refused',
          dns: 'refused',
          listen: 'refused',
          socketpair: 'ok',
        })
        // Give a datagram that slipped through time to arrive before checking none did.
        await new Promise((resolve) => {
          setTimeout(resolve, 100)
        })
        expect(outside.connections.slice(before)).toEqual([])
      })
    })

    describe.concurrent('the parent', () => {
      test('signals, ptrace, process_vm_readv, /proc and prlimit of the parent are refused; signalling itself works', async () => {
        const parent = process.pid
        const outcome = await run(`
import resource, signal
PARENT = ${parent}
attempt("kill parent", lambda: os.kill(PARENT, signal.SIGKILL))
attempt("kill ppid", lambda: os.kill(os.getppid(), 0))
attempt("kill -1", lambda: os.kill(-1, 0))
attempt("kill init", lambda: os.kill(1, 0) if os.getpid() != 1 else 1 / 0)
attempt("killpg", lambda: os.killpg(os.getpgid(PARENT), 0))
attempt("ptrace attach", lambda: raw("ptrace", 16, PARENT, 0, 0))
buf = ctypes.create_string_buffer(16)
iov = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 16)
attempt("process_vm_readv", lambda: raw("process_vm_readv", PARENT, ctypes.addressof(iov), 1, ctypes.addressof(iov), 1, 0))
attempt("environ", lambda: open(f"/proc/{PARENT}/environ").read())
attempt("prlimit", lambda: resource.prlimit(PARENT, resource.RLIMIT_NOFILE, (1, 1)))
attempt("pidfd_open", lambda: raw("pidfd_open", PARENT, 0))
attempt("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, PARENT, 19))
# Python reports the kernel's EPERM here as ValueError.
attempt("raise rlimit", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1] + 1,) * 2), ValueError)
got = []
signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
def self_signal():
    os.kill(os.getpid(), signal.SIGUSR1)
    assert got == [1]
control("signal self", self_signal)
control("prlimit self", lambda: resource.prlimit(0, resource.RLIMIT_NOFILE))
`)
        expectVerdicts(outcome, {
          'kill parent': 'refused',
          'kill ppid': 'refused',
          'kill -1': 'refused',
          'kill init': 'refused',
          killpg: 'refused',
          'ptrace attach': 'refused',
          process_vm_readv: 'refused',
          environ: 'refused',
          prlimit: 'refused',
          pidfd_open: 'refused',
          setpriority: 'refused',
          'raise rlimit': 'refused',
          'signal self': 'ok',
          'prlimit self': 'ok',
        })
      })

      test('the environment holds no secrets, no capabilities are held, root is given up', async () => {
        const outcome = await run(`
import json
print("ENV " + json.dumps(dict(os.environ)))
hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)
data = (ctypes.c_uint32 * 6)()
raw("capget", ctypes.addressof(hdr), ctypes.addressof(data))
print("CAPS " + json.dumps(list(data), separators=(",", ":")))
bounding = [c for c in range(41) if _libc.prctl(23, c, 0, 0, 0) == 1]
print("BOUNDING " + json.dumps(bounding, separators=(",", ":")))
print("NNP", _libc.prctl(39, 0, 0, 0, 0), "SECCOMP", _libc.prctl(21, 0, 0, 0, 0))
print("UID", os.getuid(), os.geteuid())
`)
        expect(outcome.ok, outcome.text).toBe(true)
        const env = JSON.parse(/^ENV (.*)$/m.exec(outcome.output)?.[1] ?? 'null') as Record<string, string>
        const harmless = new Set([
          'HOME',
          'LANG',
          'LC_ALL',
          'LC_CTYPE',
          'PATH',
          'PWD',
          'PYTHONIOENCODING',
          'TMPDIR',
          'TZ',
        ])
        expect(Object.keys(env).filter((name) => !harmless.has(name))).toEqual([])
        expect(outcome.output).not.toContain(SECRET)
        expect(/^CAPS (.*)$/m.exec(outcome.output)?.[1]).toBe('[0,0,0,0,0,0]')
        expect(outcome.output).toMatch(/^NNP 1 SECCOMP 2$/m)
        const uid = Number(/^UID (\d+)/m.exec(outcome.output)?.[1])
        expect(/^BOUNDING (.*)$/m.exec(outcome.output)?.[1]).toBe('[]')
        // Root's child drops to a uid of its own in every tier, whatever the interpreter's
        // directory (pyenv under /root 0700 included); an unprivileged user's is nobody inside bwrap.
        if (process.geteuid?.() === 0) expect(uid - RUN_UID_BASE).toBeGreaterThanOrEqual(0)
        else if (bwrap) expect(uid).toBe(65_534)
      })
    })

    describe.concurrent('kernel surface', () => {
      test('unshare, setns, mount, bpf, io_uring, userfaultfd, keyctl, perf and TIOCSTI are refused; ordinary ioctls work', async () => {
        const outcome = await run(`
import fcntl, termios, struct
attempt("unshare", lambda: raw("unshare", 0x10000000))
attempt("unshare mount", lambda: raw("unshare", 0x20000))
attempt("setns", lambda: raw("setns", 0, 0))
attempt("mount", lambda: raw("mount", ctypes.c_char_p(b"none"), ctypes.c_char_p(b"."), ctypes.c_char_p(b"tmpfs"), 0, 0))
attempt("open_tree", lambda: raw("open_tree", -100, ctypes.c_char_p(b"/"), 1))
attempt("fsopen", lambda: raw("fsopen", ctypes.c_char_p(b"tmpfs"), 0))
attempt("bpf", lambda: raw("bpf", 0, 0, 0))
params = ctypes.create_string_buffer(120)
attempt("io_uring_setup", lambda: raw("io_uring_setup", 4, ctypes.addressof(params)))
attempt("userfaultfd", lambda: raw("userfaultfd", 0))
attempt("keyctl", lambda: raw("keyctl", 0, -3, 0))
attempt("add_key", lambda: raw("add_key", ctypes.c_char_p(b"user"), ctypes.c_char_p(b"k"), ctypes.c_char_p(b"v"), 1, -3))
attempt("perf_event_open", lambda: raw("perf_event_open", 0, 0, -1, -1, 0))
for fd in (0, 1, 2):
    attempt(f"tiocsti {fd}", lambda fd=fd: fcntl.ioctl(fd, termios.TIOCSTI, b"x"))
r, w = os.pipe()
os.write(w, b"abc")
control("fionread", lambda: struct.unpack("i", fcntl.ioctl(r, termios.FIONREAD, b"\\0\\0\\0\\0"))[0] == 3 or 1 / 0)
`)
        expectVerdicts(outcome, {
          unshare: 'refused',
          'unshare mount': 'refused',
          setns: 'refused',
          mount: 'refused',
          open_tree: 'refused',
          fsopen: 'refused',
          bpf: 'refused',
          io_uring_setup: 'refused',
          userfaultfd: 'refused',
          keyctl: 'refused',
          add_key: 'refused',
          perf_event_open: 'refused',
          'tiocsti 0': 'refused',
          'tiocsti 1': 'refused',
          'tiocsti 2': 'refused',
          fionread: 'ok',
        })
        // EPERM from the filter, not ENOTTY from a descriptor that is no terminal.
        expect(details(outcome.output).get('tiocsti 1')).toMatch(/^PermissionError/)
      })

      test('SysV and POSIX IPC and inotify watches are refused; pipes and eventfd work', async () => {
        const outcome = await run(`
import mmap
SYS = {"x86_64": {"shmget": 29, "msgget": 68, "semget": 64, "mq_open": 240, "inotify_init1": 294, "inotify_add_watch": 254, "eventfd2": 290},
       "aarch64": {"shmget": 194, "msgget": 186, "semget": 190, "mq_open": 180, "inotify_init1": 26, "inotify_add_watch": 27, "eventfd2": 19}}[platform.machine()]
_NR.update(SYS)
attempt("shmget", lambda: raw("shmget", 0, 4096, 0o1600))
attempt("msgget", lambda: raw("msgget", 0, 0o1600))
attempt("semget", lambda: raw("semget", 0, 1, 0o1600))
attempt("mq_open", lambda: raw("mq_open", ctypes.c_char_p(b"q"), 0o100 | 2, 0o600, 0))
fd = raw("inotify_init1", 0)
attempt("inotify_add_watch", lambda: raw("inotify_add_watch", fd, ctypes.c_char_p(b"."), 0xfff))
control("eventfd", lambda: raw("eventfd2", 0, 0))
control("anonymous mmap", lambda: mmap.mmap(-1, 1 << 20).write(b"x"))
`)
        expectVerdicts(outcome, {
          shmget: 'refused',
          msgget: 'refused',
          semget: 'refused',
          mq_open: 'refused',
          inotify_add_watch: 'refused',
          eventfd: 'ok',
          'anonymous mmap': 'ok',
        })
      })
    })

    test('the standard library programs use works', async () => {
      const outcome = await engine.run(String.raw`
import json, math, statistics, re, collections, itertools, decimal, fractions, random, hashlib
import csv, io, textwrap, pathlib, tempfile, threading, asyncio, datetime, zoneinfo
assert json.loads(json.dumps({"a": [1, 2.5, None]})) == {"a": [1, 2.5, None]}
assert math.isclose(math.sqrt(2) ** 2, 2) and statistics.median([3, 1, 2]) == 2
assert re.findall(r"\d+", "a1b22") == ["1", "22"]
assert collections.Counter("abca").most_common(1) == [("a", 2)]
assert list(itertools.islice(itertools.count(), 3)) == [0, 1, 2]
assert decimal.Decimal("0.1") + decimal.Decimal("0.2") == decimal.Decimal("0.3")
assert fractions.Fraction(1, 3) * 3 == 1
random.seed(1); assert 0 <= random.random() < 1; random.SystemRandom().random()
assert hashlib.sha256(b"").hexdigest().startswith("e3b0c442")
buf = io.StringIO(); csv.writer(buf).writerow(["a", "b"]); assert buf.getvalue() == "a,b\r\n"
assert textwrap.shorten("hello world again", 12) == "hello [...]"
paris = datetime.datetime(2024, 7, 1, 12, tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))
assert paris.utcoffset() == datetime.timedelta(hours=2)
datetime.datetime.now().astimezone()
p = pathlib.Path("data") / "x.txt"; p.parent.mkdir(); p.write_text("hi"); assert p.read_text() == "hi"
with tempfile.TemporaryDirectory() as d:
    pathlib.Path(d, "t").write_text("t")
with tempfile.NamedTemporaryFile("w+") as f:
    f.write("x"); f.flush()
out = []
t = threading.Thread(target=out.append, args=(1,)); t.start(); t.join(); assert out == [1]
async def main():
    q = asyncio.Queue()
    await q.put(1)
    return await asyncio.wait_for(q.get(), 1)
assert await main() == 1
print("stdlib ok")
`)
      expect(outcome.ok, outcome.text).toBe(true)
      expect(outcome.output).toBe('stdlib ok\n')
    })
  })

  describe.each(TIERS)('resource limits, tier $name', ({bwrap}) => {
    let engine: EngineHandle
    const run = (code: string) => engine.run(PRELUDE + code)
    const healthy = async () => {
      const outcome = await run('print(sum(range(10)))')
      expect(outcome.ok, outcome.text).toBe(true)
      expect(outcome.output).toBe('45\n')
    }

    beforeAll(async () => {
      engine = await startEngine(createLinuxBackend({bwrap}), {timeout_seconds: 3, max_output_bytes: 4096})
    })
    afterAll(async () => {
      await engine?.close()
    })

    test('a huge allocation fails with MemoryError, and the next program runs', async () => {
      const outcome = await run('x = bytearray(64 * 1024 ** 3)')
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toMatch(/MemoryError/)
      await healthy()
    })

    test('a CPU spin is killed at the timeout, and the next program runs', async () => {
      const outcome = await run('while True:\n    pass')
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toMatch(/TimeoutError: Execution exceeded 3s limit/)
      await healthy()
    })

    test('sleeping forever is killed at the timeout, and the next program runs', async () => {
      const outcome = await run('import time\ntime.sleep(10 ** 6)')
      expect(outcome.error).toMatch(/TimeoutError/)
      await healthy()
    })

    test('a stdout flood is capped, and the next program runs', async () => {
      const outcome = await run('while True:\n    print("x" * 1000)')
      expect(outcome.ok).toBe(false)
      expect(Buffer.byteLength(outcome.output)).toBeLessThan(4096 + 400)
      expect(outcome.output).toMatch(/\.\.\. \[\d+ bytes omitted(?:: the whole output is in [^\]]+)?\]/)
      await healthy()
    })

    test('a program stopped by a limit is told which, with the figure in force', async () => {
      // A small scratch: the file-size limit follows it (8 MiB), the tmpfs holds 8 MiB in 2048 files.
      const small = await startEngine(createLinuxBackend({bwrap}), {max_scratch_bytes: 8 * 1024 * 1024})
      try {
        const huge = await small.run('with open("f", "wb") as f:\n    f.write(b"x" * (9 * 1024 * 1024))')
        expect(huge.error).toMatch(
          /OSError: \[Errno 27\] File too large\nhint: a file may be at most 8 MiB: write less, or split it into several files$/,
        )
        const spawn = await small.run('import subprocess\nsubprocess.run(["ls"])')
        expect(spawn.error).toMatch(
          /PermissionError: \[Errno 1\] Operation not permitted\nhint: the sandbox refused this: programs cannot start processes, change privileges or reach the network; call a tool for it$/,
        )
        const fifo = await small.run('import os\nos.mkfifo("pipe")')
        expect(fifo.error).toMatch(
          /PermissionError: \[Errno 1\] Operation not permitted(?:: 'pipe')?\nhint: the sandbox refused this: programs cannot make FIFOs or device files; use a regular file, or an asyncio.Queue between tasks$/,
        )
        if (bwrap) {
          const full = await small.run(
            'for n in range(3):\n    with open(f"f{n}", "wb") as f:\n        f.write(b"x" * (3 * 1024 * 1024))',
          )
          expect(full.error).toMatch(
            /OSError: \[Errno 28\] No space left on device\nhint: the scratch directory is full \(at most 8 MiB in 2048 files: execution.max_scratch_bytes\): delete what the program no longer needs, or keep less$/,
          )
        }
      } finally {
        await small.close()
      }
    })

    test('filling the scratch space is refused, and the next program runs', async () => {
      // One file stops at the file-size limit; inside bwrap the scratch tmpfs also has a size.
      // Writing some 320 MiB takes a loaded 2-core box seconds: this program gets 20 s, not 3.
      const roomy = await startEngine(createLinuxBackend({bwrap}), {max_output_bytes: 4096})
      try {
        const outcome = await roomy.run(
          PRELUDE +
            `
def fill(files, mib):
    for n in range(files):
        with open(f"fill-{n}", "wb") as f:
            for _ in range(mib):
                f.write(b"\\0" * (1024 * 1024))
attempt("one huge file", lambda: fill(1, 80))
${bwrap ? 'attempt("fill the tmpfs", lambda: fill(8, 60))' : ''}
for name in os.listdir("."):
    if os.path.isfile(name):
        os.unlink(name)
control("small file", lambda: open("small", "wb").write(b"x"))
`,
        )
        expectVerdicts(outcome, {
          'one huge file': 'refused',
          ...(bwrap ? {'fill the tmpfs': 'refused'} : {}),
          'small file': 'ok',
        })
        const next = await roomy.run('print(sum(range(10)))')
        expect(next.output, next.text).toBe('45\n')
      } finally {
        await roomy.close()
      }
    })
  })
})
