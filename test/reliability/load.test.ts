// Many programs through one `serve`: every output right, and nothing left behind — no processes,
// no file descriptors, no scratch directories — with the server's memory within a stated bound.
import {readdirSync, readFileSync} from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {warmPoolMax} from '../../src/execution/engine/warm-pool.js'
import {fixtureCommand} from '../fixtures/start-fixture.js'
import {type RawServe, startRawServe} from '../helpers/json-rpc.js'
import {commandLine, descendants, isAlive, programInterpreters} from '../helpers/processes.js'
import {execute, waitForConnected} from '../helpers/serve-session.js'
import {prepareServe, type ServeSetup} from '../helpers/serve.js'

const SEQUENTIAL = 200
const CONCURRENT = 200
const AT_ONCE = 8
const WARM_POOL = 1
/** Children waiting ready after programs ran at once: the pool of forked children grows to this. */
const POOL_MAX = warmPoolMax({warm_pool: WARM_POOL, max_concurrent_programs: 4})
/** Growth of serve's resident memory allowed over all the programs (heap warm-up, JIT, caches). */
const RSS_GROWTH_LIMIT_MIB = 100
const RSS_LIMIT_MIB = 300
/** Descriptors that may come and go with the warm child (its pipes and channel). */
const FD_SLACK = 8
/** A waiting child's descriptors in serve: its output (a socket, or two pipes) and its channel. */
const FDS_PER_CHILD = 3

const fixture = fixtureCommand(['--name', 'fx'])

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024

/** Each program checks that its scratch directory is new, calls a tool and prints a result of its own. */
const program = (i: number) =>
  [
    'import os',
    `r = await mcp__fx__add(a=${i}, b=${i + 1})`,
    // ./session/ is there for every program (SPEC §6.2), empty: these programs keep nothing.
    'fresh = os.listdir(".") == ["session"] and os.listdir("session") == []',
    'open("mark", "w").write("x")',
    `print(${i}, r["sum"], fresh)`,
  ].join('\n')

describe('load through serve', () => {
  let setup: ServeSetup
  let serve: RawServe

  beforeAll(async () => {
    setup = prepareServe({
      servers: [{name: 'fx', ...fixture}],
      execution: {timeout_seconds: 60, warm_pool: WARM_POOL},
    })
    serve = await startRawServe(setup)
    await waitForConnected(serve, ['fx'])
  }, 60_000)

  afterAll(async () => {
    if (serve?.child.exitCode === null) await serve.kill()
    setup?.cleanup()
  })

  it(`${SEQUENTIAL} programs back to back, then ${CONCURRENT} ${AT_ONCE} at a time: all right, nothing leaked`, async () => {
    const pid = serve.child.pid!
    // Program interpreters (wrappers not counted).
    const runners = () => programInterpreters(pid)
    const downstream = () =>
      descendants(pid).filter(
        (p) => commandLine(p).includes('--name fx') && commandLine(p).startsWith(process.execPath),
      )
    // At rest: every scratch directory is a waiting child's (none still being made or removed).
    const quiet = () => {
      const waiting = runners().length
      return waiting <= POOL_MAX && setup.scratchDirs().length <= waiting
    }

    // Warm up (the first programs load code paths once), then take the baseline at rest.
    for (let i = 0; i < 3; i++) await execute(serve, program(i))
    await expect.poll(quiet, {timeout: 10_000}).toBe(true)
    const before = {fds: openFds(pid), rss: rssMiB(pid), downstream: downstream()}
    expect(before.downstream).toHaveLength(1)

    const wrong: string[] = []
    const runOne = async (i: number) => {
      const run = await execute(serve, program(i))
      const expected = `${i} ${2 * i + 1} True\n`
      if (!run.structured.ok || run.structured.output !== expected) wrong.push(`#${i}: ${run.text}`)
    }

    for (let i = 0; i < SEQUENTIAL; i++) await runOne(i)
    let next = SEQUENTIAL
    const end = SEQUENTIAL + CONCURRENT
    await Promise.all(
      Array.from({length: AT_ONCE}, async () => {
        while (next < end) await runOne(next++)
      }),
    )
    expect(wrong).toEqual([])

    await expect.poll(quiet, {timeout: 10_000}).toBe(true)
    const after = {fds: openFds(pid), rss: rssMiB(pid), downstream: downstream()}
    // The same downstream process all along: no reconnect, no second copy.
    expect(after.downstream).toEqual(before.downstream)
    // Children waiting ready: one before, up to POOL_MAX after 8 at a time.
    expect(after.fds).toBeLessThanOrEqual(before.fds + FD_SLACK + (POOL_MAX - WARM_POOL) * FDS_PER_CHILD)
    expect(after.rss - before.rss).toBeLessThan(RSS_GROWTH_LIMIT_MIB)
    expect(after.rss).toBeLessThan(RSS_LIMIT_MIB)
    expect(setup.scratchDirs().length).toBeLessThanOrEqual(POOL_MAX)

    // And at the end, nothing at all.
    const tree = descendants(pid)
    serve.child.stdin.end()
    expect(await serve.exited).toBe(0)
    await expect.poll(() => tree.every((p) => !isAlive(p)), {timeout: 5000}).toBe(true)
    expect(setup.scratchDirs()).toEqual([])
  }, 240_000)
})
