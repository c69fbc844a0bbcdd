// @tier sandbox
/**
 * Two programs at once, each the other's adversary (SPEC §7): through a tool of the test host they
 * learn each other's scratch path and host pid, then try to read, list, stat and write the other's
 * scratch, see and signal its process, reach its output and its channel, and kill whatever they can
 * reach; the children waiting for later programs and the fork server must live through it. In every
 * tier this machine has, with children made by the fork server and spawned one by one. Run as root
 * and as an unprivileged user: .ci/sandbox-tiers.sh.
 */
import {readdirSync, readFileSync, readlinkSync} from 'node:fs'
import {describe, expect, test} from 'vitest'

import type {RunOutcome} from '../../src/execution/engine/engine.js'

import {findBwrap} from '../../src/sandbox/linux/bwrap.js'
import {createLinuxBackend} from '../../src/sandbox/linux/index.js'
import {createTestEngine} from '../helpers/engine.js'
import {startRawServe} from '../helpers/json-rpc.js'
import {LocalHost} from '../helpers/local-host.js'
import {commandLine, descendants, isAlive} from '../helpers/processes.js'
import {prepareServe} from '../helpers/serve.js'
import {testPython} from '../sandbox/harness.js'
import {PRELUDE, verdicts} from '../sandbox/programs.js'

const TIERS = [
  {name: 'bwrap', bwrap: true},
  {name: 'landlock+seccomp', bwrap: false},
].filter((tier) => !tier.bwrap || findBwrap() !== undefined)
const MODES = [
  {mode: 'fork server', forkServer: true},
  {mode: 'spawned', forkServer: false},
]
const CASES = TIERS.flatMap((tier) => MODES.map((mode) => ({...tier, ...mode})))

type Info = Record<string, unknown>

/** Meetings of two programs: each round resolves once both have arrived, with the other's info. */
class Rendezvous {
  private readonly rounds = new Map<string, Map<string, {info: Info; arrived: () => void}>>()
  /** Runs on the host when both have arrived at a round, before either is answered. */
  onRound: (round: string, infos: Map<string, Info>) => void = () => {}

  async meet(round: string, role: string, info: Info): Promise<Info> {
    let arrivals = this.rounds.get(round)
    if (!arrivals) {
      arrivals = new Map()
      this.rounds.set(round, arrivals)
    }
    let arrived!: () => void
    const both = new Promise<void>((resolve) => {
      arrived = resolve
    })
    arrivals.set(role, {info, arrived})
    if (arrivals.size === 2) {
      this.onRound(round, new Map([...arrivals].map(([name, entry]) => [name, entry.info])))
      for (const entry of arrivals.values()) entry.arrived()
    }
    await both
    const other = [...arrivals].find(([name]) => name !== role)
    return other?.[1].info ?? {}
  }
}

/**
 * The namespaces each program must have of its own: every one a spawned bwrap child has, and with
 * a fork server mount and, without bwrap, IPC at least (SPEC §7); `host`: this process's.
 */
function ownNamespaces(
  bwrap: boolean,
  forkServer: boolean,
): {own: string[]; session: string[]; host: string[]} {
  // A forked child in bwrap: a mount namespace of its own, the others bwrap's, made once for the
  // fork server (SPEC §11); its seccomp filter and Landlock domain keep programs apart there.
  if (bwrap && forkServer) return {own: ['mnt'], session: ['pid', 'ipc', 'net', 'uts', 'cgroup'], host: []}
  if (bwrap) return {own: ['mnt', 'pid', 'ipc', 'net', 'uts', 'cgroup'], session: [], host: []}
  return {own: forkServer ? ['mnt', 'ipc'] : ['mnt'], session: [], host: forkServer ? ['pid'] : []}
}

/**
 * What a program asks about the other's pid, each refused: the host's pid, and with a fork server in
 * bwrap the pid the other has in the PID namespace both share.
 */
function pidProbes(shared: boolean): Record<string, string> {
  const probes = [
    'signal 0',
    'getsid',
    'getpgid',
    'getpriority',
    'affinity',
    'scheduler',
    'prlimit',
    'owner',
    'cpu clock',
  ]
  const whose = shared ? ['host pid', 'its pid'] : ['host pid']
  return Object.fromEntries(probes.flatMap((probe) => whose.map((pid) => [`${probe} (${pid})`, 'refused'])))
}

/** The namespaces of a host process, by kind (`net:[4026531840]`). */
function namespacesOf(pid: number, kinds: string[]): Record<string, string> {
  return Object.fromEntries(kinds.map((kind) => [kind, readlinkSync(`/proc/${pid}/ns/${kind}`)]))
}

/** The host pid of the process whose name (comm) is `name`, if there is one. */
function pidNamed(name: string): number | undefined {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) return Number(pid)
    } catch {
      // gone
    }
  }
  return undefined
}

/**
 * The adversary. It names its process (so that the host can find its pid), keeps a secret in its
 * scratch and prints another, then attacks the other program with what it was told.
 */
function adversary(role: string, marker: string): string {
  const name = `${marker}${role}`
  return `${PRELUDE}
import asyncio, signal, socket, stat
NAME = ${JSON.stringify(name)}
ctypes.CDLL(None).prctl(15, NAME.encode(), 0, 0, 0)
with open("secret.txt", "w") as f:
    f.write("scratch secret of " + NAME)
print("output secret of " + NAME, f"as pid {os.getpid()}", flush=True)
try:
    with open("/tmp/leftover.txt", "w") as f:
        f.write(NAME)
except OSError:
    pass  # /tmp is out of reach in this tier
other = await mcp__t__meet(round="hello", role=${JSON.stringify(role)}, info={"cwd": os.getcwd(), "name": NAME, "own_pid": os.getpid()})
where, pid = other["cwd"], other["pid"]
# Its pid as it sees itself: with a fork server in bwrap, a pid of the namespace both share.
own_pid = other["own_pid"]
attempt("read", lambda: open(where + "/secret.txt").read())
attempt("list", lambda: os.listdir(where))
attempt("stat", lambda: os.stat(where + "/secret.txt"))
attempt("write", lambda: open(where + "/planted.txt", "w").write("x"))
attempt("see", lambda: open(f"/proc/{pid}/cmdline").read())
attempt("output", lambda: open(f"/proc/{pid}/fd/1").read())
attempt("signal 0", lambda: os.kill(pid, 0))
attempt("signal", lambda: os.kill(pid, signal.SIGKILL))
# The same PID namespace as the other with a fork server: nothing may ask after its pid.
# (In a namespace of its own, the other's pid is another pid here, or this one: not probed.)
for which, whose in ((pid, "host pid"), (own_pid, "its pid")):
    if whose == "its pid" and own_pid in (pid, os.getpid()):
        continue
    attempt(f"signal 0 ({whose})", lambda: os.kill(which, 0))
    attempt(f"getsid ({whose})", lambda: os.getsid(which))
    attempt(f"getpgid ({whose})", lambda: os.getpgid(which))
    attempt(f"getpriority ({whose})", lambda: os.getpriority(os.PRIO_PROCESS, which))
    attempt(f"affinity ({whose})", lambda: os.sched_getaffinity(which))
    attempt(f"scheduler ({whose})", lambda: os.sched_getscheduler(which))
    attempt(f"prlimit ({whose})", lambda: __import__("resource").prlimit(which, __import__("resource").RLIMIT_NOFILE))
    # A descriptor whose owner it is gets SIGIO when ready (F_SETOWN, then O_ASYNC): uid-checked only.
    attempt(f"owner ({whose})", lambda: __import__("fcntl").fcntl(os.pipe()[0], __import__("fcntl").F_SETOWN, which))
    # Its CPU clock, which the kernel lets any process read: ~pid << 3 | CPUCLOCK_SCHED.
    attempt(f"cpu clock ({whose})", lambda: __import__("time").clock_gettime((~which << 3) | 2))

# A fork server's socket, when this process has one on its stack (it was forked): connecting to
# it would let a program pose as another's output or channel.
frame, server = sys._getframe(), None
while frame is not None:
    candidate = frame.f_locals.get("self")
    if hasattr(candidate, "socket_path"):
        server = candidate
    frame = frame.f_back
if server is not None:
    def connect():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(server.socket_path)
        return s
    attempt("fork server socket", connect)
# Whatever socket this process holds but its own channel and output: requests a fork server would
# act on.
loop = asyncio.get_running_loop()
own = {255, 254, loop._ssock.fileno(), loop._csock.fileno()}
forged = "".join('{"type":"kill","id":%d}\\n' % n for n in range(1, 200)).encode()
reached = []
for fd in range(3, 1024):
    if fd in own:
        continue
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, forged)
            reached.append(fd)
    except OSError:
        pass
print(f"sockets written: {reached}", flush=True)

await mcp__t__meet(round="attacked", role=${JSON.stringify(role)}, info={})
# Every pid it could name, its own excepted.
killed = []
for target in range(1, 4097):
    if target == os.getpid():
        continue
    try:
        os.kill(target, signal.SIGKILL)
        killed.append(target)
    except OSError:
        pass
print(f"killed: {killed}", flush=True)
await mcp__t__meet(round="killed", role=${JSON.stringify(role)}, info={})

control("own secret intact", lambda: open("secret.txt").read() == "scratch secret of " + NAME or 1 / 0)
control("nothing planted", lambda: not os.path.exists("planted.txt") or 1 / 0)
echoed = await mcp__t__echo(value=NAME)
control("own tool result", lambda: echoed == NAME or 1 / 0)
`
}

describe.skipIf(process.platform !== 'linux')('two programs at once cannot reach each other', () => {
  describe.each(CASES)('tier $name, $mode', ({bwrap, forkServer}) => {
    test('neither reaches the other, and the waiting children and the fork server live on', async () => {
      const rendezvous = new Rendezvous()
      const host = new LocalHost(
        {
          meet: (args) => rendezvous.meet(String(args.round), String(args.role), (args.info ?? {}) as Info),
          echo: (args) => args.value,
        },
        't',
      )
      const engine = await createTestEngine(
        host,
        {timeout_seconds: 120, warm_pool: 2, tool_call_timeout_seconds: 120},
        {backend: createLinuxBackend({bwrap}), forkServer},
      )
      const marker = `iso${process.pid % 10_000}`
      // Before the first attack, every process of the engine: the fork server, the children
      // waiting for later programs, the two programs and their wrappers. None may die before both
      // programs are done attacking.
      let bystanders: number[] = []
      let dead: number[] | undefined
      const programPids: unknown[] = []
      const {own, session, host: hostOwned} = ownNamespaces(bwrap, forkServer)
      const kinds = [...own, ...session, ...hostOwned]
      const namespaces: Record<string, string>[] = []
      rendezvous.onRound = (round, infos) => {
        if (round === 'hello') {
          for (const info of infos.values()) {
            info.pid = pidNamed(String(info.name))
            programPids.push(info.pid)
            if (typeof info.pid === 'number') namespaces.push(namespacesOf(info.pid, kinds))
          }
          bystanders = descendants(process.pid)
        }
        if (round === 'killed') dead = bystanders.filter((pid) => !isAlive(pid))
      }
      try {
        const [a, b] = await Promise.all([
          engine.run(adversary('A', marker)),
          engine.run(adversary('B', marker)),
        ])
        for (const [outcome, other] of [
          [a, `${marker}B`],
          [b, `${marker}A`],
        ] as [RunOutcome, string][]) {
          expect(outcome.ok, outcome.text).toBe(true)
          expect(Object.fromEntries(verdicts(outcome.output)), outcome.output).toEqual({
            read: 'refused',
            list: 'refused',
            stat: 'refused',
            write: 'refused',
            see: 'refused',
            output: 'refused',
            'signal 0': 'refused',
            signal: 'refused',
            ...pidProbes(bwrap && forkServer),
            ...(forkServer && {'fork server socket': 'refused'}),
            'own secret intact': 'ok',
            'nothing planted': 'ok',
            'own tool result': 'ok',
          })
          expect(outcome.output).toContain('sockets written: []')
          expect(outcome.output).toContain('killed: []')
          expect(outcome.output).not.toContain(other)
        }
        expect(programPids).toEqual([expect.any(Number), expect.any(Number)])
        // Each program in namespaces of its own: none shared with the other, or with this process.
        const mine = namespacesOf(process.pid, kinds)
        for (const kind of own) {
          const seen = [mine[kind], namespaces[0]?.[kind], namespaces[1]?.[kind]]
          expect(new Set(seen).size, `${kind}: ${seen.join(' ')}`).toBe(3)
        }
        // The session's: the same for both programs, not this process's.
        for (const kind of session) {
          const seen = [mine[kind], namespaces[0]?.[kind], namespaces[1]?.[kind]]
          expect(seen[1], `${kind}: ${seen.join(' ')}`).toBe(seen[2])
          expect(seen[1], `${kind}: ${seen.join(' ')}`).not.toBe(seen[0])
        }
        // This process's, for both programs (the fork server's, without bwrap).
        for (const kind of hostOwned) {
          const seen = [mine[kind], namespaces[0]?.[kind], namespaces[1]?.[kind]]
          expect(new Set(seen).size, `${kind}: ${seen.join(' ')}`).toBe(1)
        }
        // With a fork server, more than the two programs: the server (and the waiting children).
        expect(bystanders.length).toBeGreaterThan(forkServer ? 2 : 1)
        expect(dead).toEqual([])
        // A later program gets a child of its own: nothing of the two is left in it.
        const later = await engine.run(
          'import os\nprint(os.listdir("."), os.path.exists("/tmp/leftover.txt"))',
        )
        // Only ./session/ (SPEC §6.2), which every program finds: these two kept nothing in it.
        expect(later.output, later.text).toBe("['session'] False\n")
      } finally {
        await engine.close()
      }
    })
  })
})

describe.skipIf(process.platform !== 'linux')('a server killed mid-run leaves no process behind', () => {
  describe.each(CASES)('tier $name, $mode', ({bwrap, forkServer}) => {
    test('SIGKILL of serve ends the running program, the waiting children and the fork server', async () => {
      const setup = prepareServe({
        servers: [],
        execution: {warm_pool: 2, timeout_seconds: 300, python: testPython()},
      })
      setup.env.PTC_MCP_FORK_SERVER = forkServer ? '1' : '0'
      setup.env.PTC_MCP_BWRAP = bwrap ? '1' : '0'
      const serve = await startRawServe(setup)
      try {
        const name = `orph${process.pid % 10_000}${bwrap ? 'b' : 'l'}${forkServer ? 'f' : 's'}`
        const running = serve.callTool('execute_program', {
          code: `import ctypes, time\nctypes.CDLL(None).prctl(15, b"${name}", 0, 0, 0)\ntime.sleep(300)`,
        })
        running.catch(() => {})
        await expect.poll(() => pidNamed(name) !== undefined, {timeout: 60_000}).toBe(true)
        const tree = descendants(serve.child.pid!)
        expect(tree).toContain(pidNamed(name))
        await serve.kill()
        const alive = () => tree.filter((pid) => isAlive(pid))
        await expect
          .poll(() => alive().map((pid) => `${pid}: ${commandLine(pid)}`), {timeout: 30_000})
          .toEqual([])
      } finally {
        await serve.kill()
        setup.cleanup()
      }
    })
  })
})
