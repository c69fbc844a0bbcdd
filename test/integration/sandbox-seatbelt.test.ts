// @tier sandbox
/**
 * Escape attempts against the seatbelt backend (macOS), through the real engine. Each attempt is
 * paired with a control that must work. The profile and argv are unit-tested on every platform in
 * src/sandbox/seatbelt/profile.test.ts; these need a Mac.
 */
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {homedir, tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'

import {createSeatbeltBackend} from '../../src/sandbox/seatbelt/index.js'
import {type EngineHandle, startEngine} from '../sandbox/harness.js'
import {HELPERS, py, verdicts} from '../sandbox/programs.js'

describe.skipIf(process.platform !== 'darwin')('seatbelt sandbox escape attempts', () => {
  let engine: EngineHandle
  let outside: string
  const run = (code: string) => engine.run(HELPERS + code)

  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), 'ptc-escape-outside-'))
    await writeFile(join(outside, 'victim.txt'), 'outside\n')
    engine = await startEngine(createSeatbeltBackend(), {timeout_seconds: 20})
  })
  afterAll(async () => {
    await engine?.close()
    await rm(outside, {recursive: true, force: true})
  })

  test('every attempt is refused and every control works', async () => {
    const outcome = await run(`
import socket, subprocess, threading, asyncio
attempt("passwd", lambda: open("/etc/passwd").read())
attempt("victim", lambda: open(${py(join(outside, 'victim.txt'))}).read())
attempt("write outside", lambda: open(${py(join(outside, 'new.txt'))}, "w").write("x"))
attempt("list home", lambda: os.listdir(${py(homedir())}))
attempt("stat home file", lambda: os.stat(${py(join(homedir(), '.zshrc'))}))
attempt("subprocess", lambda: subprocess.run(["/usr/bin/true"]))
def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
attempt("fork", fork)
attempt("tcp", lambda: socket.create_connection(("127.0.0.1", 22), timeout=2))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
attempt("kill parent", lambda: os.kill(os.getppid(), 0))
with open("mine.txt", "w") as f:
    f.write("mine")
control("scratch", lambda: open("mine.txt").read() == "mine" or 1 / 0)
out = []
t = threading.Thread(target=out.append, args=(1,)); t.start(); t.join()
control("thread", lambda: out == [1] or 1 / 0)
value = await asyncio.sleep(0.01, 7)
control("asyncio", lambda: value == 7 or 1 / 0)
import json, zoneinfo, datetime, decimal, hashlib
control("stdlib", lambda: datetime.datetime(2024, 7, 1, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")).utcoffset())
`)
    expect(outcome.sandbox).toBe('seatbelt')
    const found = verdicts(outcome.output)
    for (const label of [
      'passwd',
      'victim',
      'write outside',
      'list home',
      'stat home file',
      'subprocess',
      'fork',
      'tcp',
      'dns',
      'kill parent',
    ]) {
      expect(found.get(label), `${label}\n${outcome.text}`).toBe('refused')
    }
    for (const label of ['scratch', 'thread', 'asyncio', 'stdlib']) {
      expect(found.get(label), `${label}\n${outcome.text}`).toBe('ok')
    }
  })
})
