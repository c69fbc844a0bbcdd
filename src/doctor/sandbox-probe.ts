import {randomBytes} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Logger} from '../log.js'
import type {BoundsInForce, PythonInfo} from '../sandbox/backend.js'

import {executionSchema, type SANDBOX_BACKENDS} from '../config/schema.js'
import {ToolRegistry} from '../downstream/registry.js'
import {ProgramEngine} from '../execution/engine.js'
import {selectBackend} from '../sandbox/index.js'

export interface SandboxProbe {
  tier: string
  /** Each escape attempt, judged from outside the sandbox where possible. */
  attempts: Array<{name: string; refused: boolean}>
  controlWorked: boolean
  controlError?: string
  /** How each per-program bound is enforced here, when the backend says (SPEC §15). */
  bounds?: BoundsInForce
}

/**
 * A live probe of the configured backend: one program tries to read a file outside, write a file
 * outside, connect to a listener this process opens and fork; each must be refused. Then a program
 * that must work (stdlib, threads, a file in scratch) must work.
 */
export async function probeSandbox(
  python: PythonInfo,
  setting: (typeof SANDBOX_BACKENDS)[number],
  logger: Logger,
): Promise<SandboxProbe> {
  const backend = await selectBackend(setting)
  const {bounds} = await backend.check(python)
  const execution = executionSchema.parse({sandbox: setting, warm_pool: 0, timeout_seconds: 20, trace: 'off'})
  const host = new ToolRegistry({servers: []}, {logger})
  const engine = new ProgramEngine({execution, host, backend, python, logger})
  const outside = await mkdtemp(join(tmpdir(), 'ptc-doctor-'))
  const listener = await listen()
  try {
    const secret = randomBytes(12).toString('hex')
    const secretFile = join(outside, 'secret.txt')
    const writeTarget = join(outside, 'written.txt')
    await writeFile(secretFile, secret)
    const escape = await engine.run(escapeProgram(secretFile, writeTarget, listener.port))
    const report = escape.result as Record<string, string> | null
    const attempts = [
      {name: 'read outside', refused: !escape.output.includes(secret)},
      {name: 'write outside', refused: !existsSync(writeTarget)},
      {name: 'socket', refused: listener.connections() === 0 && report?.socket !== 'allowed'},
      {name: 'fork', refused: report?.fork !== undefined && report.fork !== 'allowed'},
    ]
    const control = await engine.run(CONTROL_PROGRAM)
    const controlWorked = control.ok && control.output.trim() === 'ok'
    return {
      tier: escape.sandbox,
      attempts,
      controlWorked,
      controlError: controlWorked ? undefined : (control.error ?? control.output),
      bounds,
    }
  } finally {
    await engine.close()
    listener.server.close()
    await rm(outside, {force: true, recursive: true})
  }
}

function escapeProgram(secretFile: string, writeTarget: string, port: number): string {
  return `
import os, socket
report = {}
def attempt(name, action):
    try:
        action()
        report[name] = "allowed"
    except BaseException as error:
        report[name] = type(error).__name__
def read():
    with open(${JSON.stringify(secretFile)}) as f:
        print(f.read())
def write():
    with open(${JSON.stringify(writeTarget)}, "w") as f:
        f.write("escaped")
def connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(("127.0.0.1", ${port}))
    s.close()
def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
attempt("read", read)
attempt("write", write)
attempt("socket", connect)
attempt("fork", fork)
emit(report)
`
}

const CONTROL_PROGRAM = `
import json, threading, asyncio, pathlib
pathlib.Path("probe.txt").write_text(json.dumps({"n": 1}))
results = []
t = threading.Thread(target=lambda: results.append(1))
t.start(); t.join()
await asyncio.sleep(0)
assert json.loads(pathlib.Path("probe.txt").read_text())["n"] == results[0]
print("ok")
`

async function listen(): Promise<{server: Server; port: number; connections(): number}> {
  let count = 0
  const server = createServer((socket) => {
    count++
    socket.destroy()
  })
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {server, port, connections: () => count}
}
