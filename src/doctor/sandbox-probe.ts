import type {BoundsInForce, PythonInfo} from '../sandbox/backend.js'
import type {Logger} from '../shared/log.js'

import {executionSchema} from '../config/schema.js'
import {loadToolRegistry} from '../downstream/index.js'
import {loadProgramEngine} from '../execution/index.js'
import {type SandboxSetting, selectBackend} from '../sandbox/index.js'
import {
  DEFAULT_PROBE,
  type EscapeAttempt,
  openProbeTargets,
  probeProgram,
  type ProbeReport,
} from '../sandbox/probe.js'

export interface SandboxProbe {
  tier: string
  /** Each escape attempt, judged from outside the sandbox where possible. */
  attempts: Array<{name: EscapeAttempt; refused: boolean}>
  controlWorked: boolean
  controlError?: string
  /** How each per-program bound is enforced here, when the backend says (SPEC §15). */
  bounds?: BoundsInForce
}

/**
 * A live probe of the configured backend: the escape probe (src/sandbox/probe.py) runs as a program,
 * through the engine as every program does, and makes the backend's attempts (read a file outside,
 * write one, connect to a listener this process opens, fork, and what else its platform refuses);
 * each must be refused. Then a program that must work (stdlib, threads, a file in scratch) must work.
 * `signal` (Ctrl-C) cancels the program running, and the next one never starts.
 */
export async function probeSandbox(
  python: PythonInfo,
  setting: SandboxSetting,
  logger: Logger,
  signal?: AbortSignal,
): Promise<SandboxProbe> {
  const backend = await selectBackend(setting)
  const {bounds} = await backend.check(python)
  const plan = backend.probe ?? DEFAULT_PROBE
  const execution = executionSchema.parse({sandbox: setting, warm_pool: 0, timeout_seconds: 20, trace: 'off'})
  const [{ToolRegistry}, {ProgramEngine}] = await Promise.all([loadToolRegistry(), loadProgramEngine()])
  const host = new ToolRegistry({servers: []}, {logger})
  const engine = new ProgramEngine({execution, host, backend, python, logger})
  const targets = await openProbeTargets()
  try {
    const escape = await engine.run(await probeProgram(targets.config(plan)), {signal})
    const report = (escape.result ?? {confined: false}) as ProbeReport
    const returned = `${escape.output}\n${JSON.stringify(escape.result ?? null)}`
    const {attempts} = targets.verdict(plan, report, returned)
    const control = await engine.run(CONTROL_PROGRAM, {signal})
    const controlWorked = escape.ok && control.ok && control.output.trim() === 'ok'
    const controlError = escape.ok
      ? (control.error ?? control.output)
      : `the probe program failed: ${escape.error ?? escape.output}`
    return {
      tier: escape.sandbox,
      attempts,
      controlWorked,
      controlError: controlWorked ? undefined : controlError,
      bounds,
    }
  } finally {
    await engine.close()
    await targets.close()
  }
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
