// @tier sandbox
import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {writeFile} from 'node:fs/promises'
import {connect} from 'node:net'
import {promisify} from 'node:util'
import {describe, expect, test} from 'vitest'

import {startEngine} from '../../test/sandbox/harness.js'
import {noneBackend} from './none.js'
import {
  DEFAULT_PROBE,
  openProbeTargets,
  parseProbeReport,
  PROBE_SCRIPT,
  type ProbePlan,
  probeProgram,
  type ProbeReport,
} from './probe.js'

const python3 = process.env.PTC_MCP_TEST_PYTHON ?? 'python3'
const run = promisify(execFile)

const EVERY_ATTEMPT: ProbePlan = {
  refuse: [
    'read outside',
    'write outside',
    'socket',
    'fork',
    'read /etc/passwd',
    'unix socket',
    'spawn',
    'signal the parent',
  ],
  work: ['scratch', 'socketpair', 'thread'],
}

const everythingRefused = (plan: ProbePlan): ProbeReport => ({
  confined: true,
  refused: Object.fromEntries(plan.refuse.map((name) => [name, true])),
  works: Object.fromEntries(plan.work.map((name) => [name, true])),
})

describe.skipIf(process.platform !== 'linux')('the escape probe', () => {
  test('unconfined, every attempt gets through and is reported so, from inside and from outside', async () => {
    const targets = await openProbeTargets()
    try {
      const config = targets.config(EVERY_ATTEMPT)
      const {stdout} = await run(python3, ['-I', '-S', '-B', PROBE_SCRIPT, JSON.stringify(config)], {
        cwd: targets.scratchDir,
      })
      const report = parseProbeReport(stdout)
      expect(report?.confined).toBe(true)
      expect(report?.refused).toEqual(Object.fromEntries(EVERY_ATTEMPT.refuse.map((name) => [name, false])))
      expect(report?.works).toEqual({scratch: true, socketpair: true, thread: true})
      expect(existsSync(config.writeTarget)).toBe(true)
      const verdict = targets.verdict(EVERY_ATTEMPT, report ?? {confined: false}, stdout)
      expect(verdict.escaped).toEqual(EVERY_ATTEMPT.refuse)
      expect(verdict.broken).toEqual([])
    } finally {
      await targets.close()
    }
  })

  test('a report that claims every refusal is overruled by what the outside saw', async () => {
    const targets = await openProbeTargets()
    try {
      const config = targets.config(DEFAULT_PROBE)
      const report = everythingRefused(DEFAULT_PROBE)
      expect(targets.verdict(DEFAULT_PROBE, report, '').escaped).toEqual([])
      // The sentinel's text came back, the write target exists, the listener saw a connection.
      const {stdout: leaked} = await run(python3, [
        '-c',
        'import sys; print(open(sys.argv[1]).read())',
        config.sentinel,
      ])
      await writeFile(config.writeTarget, 'escaped')
      // The listener counts a connection, then closes it: closed here means counted there.
      await new Promise<void>((resolve, reject) => {
        const socket = connect(config.port, '127.0.0.1')
        socket.on('close', () => resolve())
        socket.on('error', reject)
        socket.resume()
      })
      const {escaped} = targets.verdict(DEFAULT_PROBE, report, leaked)
      expect(escaped).toEqual(['read outside', 'write outside', 'socket'])
    } finally {
      await targets.close()
    }
    expect(existsSync(targets.base)).toBe(false)
  })

  test('a report without an entry or a control counts as an escape and a breakage, never as a pass', async () => {
    const targets = await openProbeTargets()
    try {
      const verdict = targets.verdict(EVERY_ATTEMPT, {confined: true, refused: {fork: true}, works: {}}, '')
      expect(verdict.escaped).toEqual(EVERY_ATTEMPT.refuse.filter((name) => name !== 'fork'))
      expect(verdict.broken).toEqual(EVERY_ATTEMPT.work)
    } finally {
      await targets.close()
    }
  })

  test('as a program run by the engine (doctor), with no sandbox, it reports every attempt allowed', async () => {
    const engine = await startEngine(noneBackend, {sandbox: 'none'})
    const targets = await openProbeTargets()
    try {
      const outcome = await engine.run(await probeProgram(targets.config(DEFAULT_PROBE)))
      expect(outcome.ok).toBe(true)
      const report = outcome.result as ProbeReport
      expect(report.refused).toEqual({
        'read outside': false,
        'write outside': false,
        socket: false,
        fork: false,
      })
      expect(report.works).toEqual({scratch: true})
      const verdict = targets.verdict(DEFAULT_PROBE, report, JSON.stringify(outcome.result))
      expect(verdict.escaped).toEqual(DEFAULT_PROBE.refuse)
    } finally {
      await engine.close()
      await targets.close()
    }
  })

  test('an attempt it does not know fails the probe instead of passing it', async () => {
    const targets = await openProbeTargets()
    try {
      const config = {...targets.config(DEFAULT_PROBE), attempts: ['teleport']}
      const failed = await run(python3, ['-I', '-S', '-B', PROBE_SCRIPT, JSON.stringify(config)], {
        cwd: targets.scratchDir,
      }).catch((error: {code?: number; stdout?: string; stderr?: string}) => error)
      expect(failed).toMatchObject({code: 1, stderr: expect.stringMatching(/KeyError: 'teleport'/)})
      expect(parseProbeReport((failed as {stdout: string}).stdout)).toBeUndefined()
    } finally {
      await targets.close()
    }
  })
})
